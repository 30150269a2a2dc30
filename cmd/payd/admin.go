package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// adminHeader and the adminSections below make up the help text. Each
// resource prints only its own section so that `payd admin shops --help`
// stays short; `payd admin --help` prints them all.
const adminHeader = `payd admin — command-line client of the operator API (/admin/v1)

Usage:
  payd admin [global flags] RESOURCE COMMAND [ARGS] [flags]

Global flags (before RESOURCE, or anywhere after COMMAND):
  --admin-url URL      operator API base URL ($PAYD_ADMIN_URL; default: the
                       admin_url of --data-dir's dev.json, else http://127.0.0.1:8081)
  --admin-token TOKEN  operator bearer token ($PAYD_ADMIN_TOKEN; default: the
                       admin_token of --data-dir's dev.json)
  --data-dir DIR       data directory of a payd serve --dev (default ./payd-data;
                       $PAYD_DATA_DIR): without --admin-url and --admin-token,
                       its dev.json says where the operator API is and its token
  --json               print the server's JSON answer, indented, instead of text

After COMMAND, flags and arguments may be mixed in any order; "--" ends the
flags. A flag given after COMMAND overrides the same flag given before
RESOURCE, which overrides the environment.
`

var adminSections = []struct{ name, text string }{
	{"merchants", `Merchants:
  merchants create --name NAME [--legal-name L] [--tax-id T] [--settlement-delay-days D]
  merchants list [--limit N] [--cursor C]
  merchants get MERCHANT_ID
`},
	{"shops", `Shops:
  shops create --merchant MERCHANT_ID --region ru|kz --name NAME [--currency RUB|KZT|USD|EUR]
  shops list [--merchant MERCHANT_ID] [--limit N] [--cursor C]
  shops get SHOP_ID
  shops update SHOP_ID [--settings '{"key":value,...}'] [--set key=value ...]
  shops activate|block|unblock|suspend|resume SHOP_ID

  shops update changes only the settings it names. --set is repeatable and
  applies after --settings. A --set value that is valid JSON (a number,
  true/false, null, an array, a quoted string) is sent as that JSON, anything
  else as a string; ip_allowlist, methods_disabled and embed_origins always
  take a comma-separated list. key=null restores the default. Settings:
    requests_per_minute, payments_per_minute, payment_lifetime_seconds (numbers)
    ip_allowlist, methods_disabled, embed_origins (lists; embed_origins are
      the origins whose pages may frame the embedded payment form, stage M5)
    display_name, statement_name (strings)
    time_zone (an IANA name, such as Asia/Almaty: the zone the dashboard
      shows the shop's times in; default Europe/Moscow for ru, Asia/Almaty for kz)
    authorize_request_webhook, authorize_request_default_allow (true/false)
  Example:
    payd admin shops update shop_... --set requests_per_minute=1200 \
      --set ip_allowlist=10.0.0.0/8,192.0.2.7 --set authorize_request_webhook=true
`},
	{"keys", `Keys:
  keys issue SHOP_ID --mode test|live   prints the secret; it is shown only once
  keys list SHOP_ID
  keys revoke KEY_ID

  Issuing a key lets the shop's earlier key of the same mode work for 24 h
  more; revoke stops a key at once.
`},
	{"clock", `Test clock (only when the service runs with serve --test-clock):
  clock now
  clock advance SECONDS|DURATION        e.g. 3600, 90m, 24h, 1h30m, 7d
`},
}

const adminFooter = `
Help: payd admin help [RESOURCE], or --help after any command.
`

func adminUsage(resource string) string {
	var b strings.Builder
	b.WriteString(adminHeader)
	for _, s := range adminSections {
		if resource == "" || resource == s.name {
			b.WriteString("\n" + s.text)
		}
	}
	b.WriteString(adminFooter)
	return b.String()
}

// adminCommands maps RESOURCE and COMMAND to their implementation.
var adminCommands = map[string]map[string]func(*adminCLI, []string) error{
	"merchants": {
		"create": (*adminCLI).merchantsCreate,
		"list":   (*adminCLI).merchantsList,
		"get":    (*adminCLI).merchantsGet,
	},
	"shops": {
		"create":   (*adminCLI).shopsCreate,
		"list":     (*adminCLI).shopsList,
		"get":      (*adminCLI).shopsGet,
		"update":   (*adminCLI).shopsUpdate,
		"activate": shopAction("activate"),
		"block":    shopAction("block"),
		"unblock":  shopAction("unblock"),
		"suspend":  shopAction("suspend"),
		"resume":   shopAction("resume"),
	},
	"keys": {
		"issue":  (*adminCLI).keysIssue,
		"list":   (*adminCLI).keysList,
		"revoke": (*adminCLI).keysRevoke,
	},
	"clock": {
		"now":     (*adminCLI).clockNow,
		"advance": (*adminCLI).clockAdvance,
	},
}

// adminTimeout bounds every request: the operator API answers from the
// database, so anything slower means the service is stuck or unreachable.
const adminTimeout = 30 * time.Second

// defaultAdminURL is the operator API of a `payd serve` with default flags.
const defaultAdminURL = "http://127.0.0.1:8081"

// adminCLI holds the global options of one `payd admin` invocation.
type adminCLI struct {
	ctx context.Context
	// baseURL and token are empty until given by a flag or the
	// environment; target fills them in from dev.json or the defaults.
	baseURL string
	token   string
	dataDir string
	json    bool
	stdout  io.Writer
	client  *http.Client
	// devURL and devToken say that the address and the token came from
	// dev.json, for the hints of the errors.
	devURL, devToken bool
	resolved         bool
}

func isHelp(s string) bool { return s == "help" || s == "-h" || s == "-help" || s == "--help" }

func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	// Flag-package messages are discarded: parse errors are returned (main
	// prints them once) and help goes to stdout from adminUsage.
	f := newFlags("admin", getenv, io.Discard)
	f.Usage = func() {}
	baseURL := f.String("admin-url", "", "operator API base URL")
	token := f.Secret("admin-token", "operator API bearer token", secretAll)
	dataDir := f.String("data-dir", "./payd-data", "data directory of a payd serve --dev")
	asJSON := f.Bool("json", false, "print the raw JSON answer")
	// The flag set's own Parse is used: admin prints its own help.
	if err := f.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, adminUsage(""))
			return nil
		}
		return fmt.Errorf("admin: %w (see payd admin --help)", err)
	}
	if err := f.applyEnvironment(); err != nil {
		return err
	}
	a := &adminCLI{
		ctx: ctx, baseURL: *baseURL, token: *token, dataDir: *dataDir, json: *asJSON, stdout: stdout,
		client: &http.Client{Timeout: adminTimeout},
	}
	rest := f.Args()
	if len(rest) == 0 {
		fmt.Fprint(stderr, adminUsage(""))
		return errors.New("admin: a resource is required (merchants, shops, keys, clock)")
	}
	resource := rest[0]
	if isHelp(resource) {
		if len(rest) > 1 {
			if _, ok := adminCommands[rest[1]]; ok {
				fmt.Fprint(stdout, adminUsage(rest[1]))
				return nil
			}
		}
		fmt.Fprint(stdout, adminUsage(""))
		return nil
	}
	cmds, ok := adminCommands[resource]
	if !ok {
		fmt.Fprint(stderr, adminUsage(""))
		return fmt.Errorf("admin: unknown resource %q (merchants, shops, keys, clock)", resource)
	}
	if _, only := cmds["list"]; only && len(cmds) == 1 && (len(rest) < 2 || strings.HasPrefix(rest[1], "-")) {
		// A resource that only lists (audit) reads as a sentence without
		// its command: `payd admin audit --merchant M`.
		rest = append([]string{resource, "list"}, rest[1:]...)
	}
	if len(rest) < 2 {
		fmt.Fprint(stderr, adminUsage(resource))
		return fmt.Errorf("admin %s: a command is required", resource)
	}
	if isHelp(rest[1]) {
		fmt.Fprint(stdout, adminUsage(resource))
		return nil
	}
	run, ok := cmds[rest[1]]
	if !ok {
		fmt.Fprint(stderr, adminUsage(resource))
		return fmt.Errorf("admin %s: unknown command %q", resource, rest[1])
	}
	err := run(a, rest[2:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, adminUsage(resource))
		return nil
	}
	var ue usageError
	if errors.As(err, &ue) {
		return fmt.Errorf("admin %s %s: %s (see payd admin %s --help)", resource, rest[1], ue.msg, resource)
	}
	return err
}

// usageError is a mistake on the command line, as opposed to an answer of
// the service; runAdmin names the command and points at its help.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// flags returns a command's flag set with the global flags registered again,
// defaulting to the values already parsed, so that they may also follow the
// command words.
func (a *adminCLI) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&a.baseURL, "admin-url", a.baseURL, "operator API base URL")
	fs.StringVar(&a.token, "admin-token", a.token, "operator API bearer token")
	fs.StringVar(&a.dataDir, "data-dir", a.dataDir, "data directory of a payd serve --dev")
	fs.BoolVar(&a.json, "json", a.json, "print the raw JSON answer")
	return fs
}

// parse parses flags and positional arguments in any order: the flag
// package stops at the first non-flag, so parsing resumes after each one.
// Everything after "--" is positional. It checks the number of positional
// arguments against names, the documented ones.
func (a *adminCLI) parse(fs *flag.FlagSet, args []string, names ...string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) > 0 && pos[0] == "help" {
		return nil, flag.ErrHelp
	}
	if len(pos) < len(names) {
		return nil, usagef("%s is required", names[len(pos)])
	}
	if len(pos) > len(names) {
		return nil, usagef("unexpected argument %q", pos[len(names)])
	}
	return pos, nil
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func requireFlags(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if !isSet(fs, n) || fs.Lookup(n).Value.String() == "" {
			return usagef("--%s is required", n)
		}
	}
	return nil
}

// listQuery builds the query of a list request; zero values are left out so
// that the service applies its defaults.
func listQuery(limit int, cursor string, extra ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] != "" {
			q.Set(extra[i], extra[i+1])
		}
	}
	if limit != 0 {
		q.Set("limit", fmt.Sprint(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

func (a *adminCLI) merchantsCreate(args []string) error {
	fs := a.flags("merchants create")
	name := fs.String("name", "", "merchant name")
	legal := fs.String("legal-name", "", "legal name")
	taxID := fs.String("tax-id", "", "tax id")
	delay := fs.Int("settlement-delay-days", 0, "settlement delay in days (service default when absent)")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "name"); err != nil {
		return err
	}
	body := map[string]any{"name": *name}
	if *legal != "" {
		body["legal_name"] = *legal
	}
	if *taxID != "" {
		body["tax_id"] = *taxID
	}
	// Sent only when given: absent means the service's default, while 0 is
	// a real choice (settle the same day).
	if isSet(fs, "settlement-delay-days") {
		body["settlement_delay_days"] = *delay
	}
	return a.show(http.MethodPost, "/admin/v1/merchants", body, kindMerchant)
}

func (a *adminCLI) merchantsList(args []string) error {
	fs := a.flags("merchants list")
	limit := fs.Int("limit", 0, "page size")
	cursor := fs.String("cursor", "", "next_cursor of the previous page")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/merchants"+listQuery(*limit, *cursor), nil, kindMerchantList)
}

func (a *adminCLI) merchantsGet(args []string) error {
	pos, err := a.parse(a.flags("merchants get"), args, "MERCHANT_ID")
	if err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/merchants/"+url.PathEscape(pos[0]), nil, kindMerchant)
}

func (a *adminCLI) shopsCreate(args []string) error {
	fs := a.flags("shops create")
	merchant := fs.String("merchant", "", "merchant id")
	region := fs.String("region", "", "ru or kz")
	name := fs.String("name", "", "shop name")
	currency := fs.String("currency", "", "default currency (region's currency when absent)")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "merchant", "region", "name"); err != nil {
		return err
	}
	body := map[string]any{"merchant_id": *merchant, "region": *region, "name": *name}
	if *currency != "" {
		body["default_currency"] = strings.ToUpper(*currency)
	}
	return a.show(http.MethodPost, "/admin/v1/shops", body, kindShop)
}

func (a *adminCLI) shopsList(args []string) error {
	fs := a.flags("shops list")
	merchant := fs.String("merchant", "", "only the shops of this merchant")
	limit := fs.Int("limit", 0, "page size")
	cursor := fs.String("cursor", "", "next_cursor of the previous page")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/shops"+listQuery(*limit, *cursor, "merchant_id", *merchant), nil, kindShopList)
}

func (a *adminCLI) shopsGet(args []string) error {
	pos, err := a.parse(a.flags("shops get"), args, "SHOP_ID")
	if err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/shops/"+url.PathEscape(pos[0]), nil, kindShop)
}

func (a *adminCLI) shopsUpdate(args []string) error {
	fs := a.flags("shops update")
	settings := fs.String("settings", "", "JSON object of settings")
	var sets listFlag
	fs.Var(&sets, "set", "key=value (repeatable)")
	pos, err := a.parse(fs, args, "SHOP_ID")
	if err != nil {
		return err
	}
	patch, err := settingsPatch(*settings, sets)
	if err != nil {
		return err
	}
	return a.show(http.MethodPatch, "/admin/v1/shops/"+url.PathEscape(pos[0]), patch, kindShop)
}

func shopAction(action string) func(*adminCLI, []string) error {
	return func(a *adminCLI, args []string) error {
		pos, err := a.parse(a.flags("shops "+action), args, "SHOP_ID")
		if err != nil {
			return err
		}
		return a.show(http.MethodPost, "/admin/v1/shops/"+url.PathEscape(pos[0])+"/"+action, nil, kindShop)
	}
}

func (a *adminCLI) keysIssue(args []string) error {
	fs := a.flags("keys issue")
	mode := fs.String("mode", "", "test or live")
	pos, err := a.parse(fs, args, "SHOP_ID")
	if err != nil {
		return err
	}
	if err := requireFlags(fs, "mode"); err != nil {
		return err
	}
	return a.show(http.MethodPost, "/admin/v1/shops/"+url.PathEscape(pos[0])+"/keys", map[string]any{"mode": *mode}, kindKeyIssued)
}

func (a *adminCLI) keysList(args []string) error {
	pos, err := a.parse(a.flags("keys list"), args, "SHOP_ID")
	if err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/shops/"+url.PathEscape(pos[0])+"/keys", nil, kindKeyList)
}

func (a *adminCLI) keysRevoke(args []string) error {
	pos, err := a.parse(a.flags("keys revoke"), args, "KEY_ID")
	if err != nil {
		return err
	}
	return a.show(http.MethodPost, "/admin/v1/keys/"+url.PathEscape(pos[0])+"/revoke", nil, kindKey)
}

func (a *adminCLI) clockNow(args []string) error {
	if _, err := a.parse(a.flags("clock now"), args); err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/clock", nil, kindClock)
}

func (a *adminCLI) clockAdvance(args []string) error {
	pos, err := a.parse(a.flags("clock advance"), args, "SECONDS")
	if err != nil {
		return err
	}
	secs, err := parseAdvance(pos[0])
	if err != nil {
		return err
	}
	return a.show(http.MethodPost, "/admin/v1/clock/advance", map[string]any{"seconds": secs}, kindClock)
}
