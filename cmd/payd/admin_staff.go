package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd/internal/office"
)

// The operator's staff: the first staff admin is made here, on the host,
// with the break-glass token; everyone after signs in with a name.

var (
	staffColumns = []column{field("id"), field("email"), field("role"), yesNo("PASSWORD", "has_password"),
		yesNo("2FA", "totp_enabled"), named("DISABLED", "disabled_at")}
	operatorAuditColumns = []column{field("at"), named("STAFF", "staff_email"), field("via"), field("action"),
		named("OBJECT", "object_id"), named("MERCHANT", "merchant_id"), named("ADDRESS", "addr")}
)

func (a *adminCLI) staffCreate(args []string) error {
	fs := a.flags("staff create")
	email := fs.String("email", "", "the staff member's email")
	role := fs.String("role", "", "admin, finance, risk or support")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "email", "role"); err != nil {
		return err
	}
	data, err := a.call(http.MethodPost, "/admin/v1/staff", map[string]any{"email": *email, "role": *role})
	if err != nil {
		return err
	}
	if a.json {
		return printJSON(a.stdout, data)
	}
	var st struct {
		ID, Email, Role string
		SetupToken      string `json:"setup_token"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("admin: unexpected answer: %w", err)
	}
	fmt.Fprintf(a.stdout, "id           %s\nemail        %s\nrole         %s\nsetup_token  %s\nsetup_url    %s\n\n", st.ID, st.Email, st.Role,
		st.SetupToken, strings.TrimRight(a.baseURL, "/")+office.SetupPath+st.SetupToken)
	fmt.Fprintln(a.stdout, "Hand the setup link to the person: the back office's setup page takes it once, within 72 hours,")
	fmt.Fprintln(a.stdout, "to set a password; the second factor is enrolled at the first sign-in.")
	return nil
}

func (a *adminCLI) staffList(args []string) error {
	fs := a.flags("staff list")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	return a.showTable("/admin/v1/staff", "staff", staffColumns)
}

func (a *adminCLI) staffToken(args []string) error {
	fs := a.flags("staff token")
	name := fs.String("name", "", "what the token is for")
	rest, err := a.parse(fs, args, "STAFF_ID")
	if err != nil {
		return err
	}
	if err := requireFlags(fs, "name"); err != nil {
		return err
	}
	data, err := a.call(http.MethodPost, "/admin/v1/staff/"+url.PathEscape(rest[0])+"/tokens", map[string]any{"name": *name})
	if err != nil {
		return err
	}
	if a.json {
		return printJSON(a.stdout, data)
	}
	var k struct{ ID, Secret string }
	if err := json.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("admin: unexpected answer: %w", err)
	}
	fmt.Fprintf(a.stdout, "id      %s\nsecret  %s\n\nThe secret is shown only once.\n", k.ID, k.Secret)
	return nil
}

func (a *adminCLI) staffAudit(args []string) error {
	fs := a.flags("staff audit")
	q := url.Values{}
	filters := map[string]*string{}
	for _, f := range []string{"staff", "action", "object", "merchant"} {
		filters[f] = fs.String(f, "", "only entries of this "+f)
	}
	limit := fs.Int("limit", 0, "page size")
	cursor := fs.String("cursor", "", "next_cursor of the previous page")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	for f, param := range map[string]string{"staff": "staff_id", "action": "action", "object": "object_id", "merchant": "merchant_id"} {
		if *filters[f] != "" {
			q.Set(param, *filters[f])
		}
	}
	if *limit > 0 {
		q.Set("limit", fmt.Sprint(*limit))
	}
	if *cursor != "" {
		q.Set("cursor", *cursor)
	}
	path := "/admin/v1/audit"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return a.showTable(path, "entries", operatorAuditColumns)
}

func init() {
	adminCommands["staff"] = map[string]func(*adminCLI, []string) error{
		"create": (*adminCLI).staffCreate, "list": (*adminCLI).staffList, "token": (*adminCLI).staffToken,
		"audit": (*adminCLI).staffAudit,
	}
	adminSections = append(adminSections, struct{ name, text string }{"staff", `Operator staff:
  staff create --email EMAIL --role admin|finance|risk|support
  staff list
  staff token STAFF_ID --name NAME      a personal API token; prints the secret once
  staff audit [--staff STAFF_ID] [--action A] [--object ID] [--merchant M] [--limit N] [--cursor C]

  The first staff admin is created on the host with the break-glass token
  (--admin-token); create prints the setup token through which the person
  sets a password. Staff API tokens act with their person's role. audit
  reads the operator audit log: every change, who made it and from where.
`})
}
