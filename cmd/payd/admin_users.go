package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// The dashboard's users and the audit log: what the operator does before a
// merchant's staff can sign in, and what it reads afterwards.

// userColumns and auditColumns are the tables of users list and audit.
var (
	userColumns = []column{field("id"), field("email"), field("role"), yesNo("PASSWORD", "has_password"),
		yesNo("2FA", "totp_enabled"), named("DISABLED", "disabled_at")}
	auditColumns = []column{field("at"), named("USER", "user_email"), field("action"), named("OBJECT", "object_id"),
		field("detail"), named("SHOP", "shop_id"), field("mode"), named("ADDRESS", "addr")}
)

func (a *adminCLI) usersCreate(args []string) error {
	fs := a.flags("users create")
	merchant := fs.String("merchant", "", "merchant id")
	email := fs.String("email", "", "the user's email")
	role := fs.String("role", "", "admin, support, developer or viewer")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "merchant", "email", "role"); err != nil {
		return err
	}
	return a.showUserLink(http.MethodPost, "/admin/v1/merchants/"+url.PathEscape(*merchant)+"/users",
		map[string]any{"email": *email, "role": *role})
}

func (a *adminCLI) usersSetupLink(args []string) error {
	fs := a.flags("users setup-link")
	merchant := fs.String("merchant", "", "merchant id")
	user := fs.String("user", "", "user id")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "merchant", "user"); err != nil {
		return err
	}
	return a.showUserLink(http.MethodPost, "/admin/v1/merchants/"+url.PathEscape(*merchant)+"/users/"+url.PathEscape(*user)+"/setup_link", nil)
}

// showUserLink prints a user and its setup link: the id and the link,
// which the operator hands to the user.
func (a *adminCLI) showUserLink(method, path string, body any) error {
	data, err := a.call(method, path, body)
	if err != nil {
		return err
	}
	if a.json {
		return printJSON(a.stdout, data)
	}
	var u struct {
		ID       string `json:"id"`
		Email    string `json:"email"`
		Role     string `json:"role"`
		SetupURL string `json:"setup_url"`
	}
	if err := json.Unmarshal(data, &u); err != nil {
		return fmt.Errorf("admin: unexpected answer: %w", err)
	}
	fmt.Fprintf(a.stdout, "id         %s\nemail      %s\nrole       %s\nsetup_url  %s\n\n", u.ID, u.Email, u.Role, u.SetupURL)
	fmt.Fprintln(a.stdout, "Send the setup link to the user: it sets a password once and works for 72 hours.")
	return nil
}

func (a *adminCLI) usersList(args []string) error {
	fs := a.flags("users list")
	merchant := fs.String("merchant", "", "merchant id")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "merchant"); err != nil {
		return err
	}
	return a.showTable("/admin/v1/merchants/"+url.PathEscape(*merchant)+"/users", "users", userColumns)
}

func (a *adminCLI) audit(args []string) error {
	fs := a.flags("audit")
	merchant := fs.String("merchant", "", "merchant id")
	limit := fs.Int("limit", 0, "page size")
	cursor := fs.String("cursor", "", "next_cursor of the previous page")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "merchant"); err != nil {
		return err
	}
	return a.showTable("/admin/v1/merchants/"+url.PathEscape(*merchant)+"/audit"+listQuery(*limit, *cursor), "audit entries", auditColumns)
}

// showTable prints a list answer as a table (or its JSON with --json).
func (a *adminCLI) showTable(path, noun string, columns []column) error {
	data, err := a.call(http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if a.json {
		return printJSON(a.stdout, data)
	}
	return printTable(a.stdout, data, noun, columns)
}

func init() {
	adminCommands["users"] = map[string]func(*adminCLI, []string) error{
		"create": (*adminCLI).usersCreate, "list": (*adminCLI).usersList, "setup-link": (*adminCLI).usersSetupLink,
	}
	// audit is a resource without commands: `payd admin audit --merchant M`
	// reads as a sentence; runAdmin takes its first flag for the command.
	adminCommands["audit"] = map[string]func(*adminCLI, []string) error{"list": (*adminCLI).audit}
	adminSections = append(adminSections, struct{ name, text string }{"users", `Dashboard users:
  users create --merchant MERCHANT_ID --email EMAIL --role admin|support|developer|viewer
  users list --merchant MERCHANT_ID
  users setup-link --merchant MERCHANT_ID --user USER_ID

  create prints the user's id and its setup link, through which the user sets
  a password (once, within 72 hours); setup-link issues a fresh one, and the
  previous link stops working.
`}, struct{ name, text string }{"audit", `Audit log:
  audit --merchant MERCHANT_ID [--limit N] [--cursor C]

  What the merchant's dashboard users did (and the operator did to them),
  newest first.
`})
}
