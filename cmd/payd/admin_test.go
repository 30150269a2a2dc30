package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

const testAdminToken = "adm_test_token_0123456789"

// operatorRoute is what the fake operator API expects of the one request a
// test makes, and what it answers.
type operatorRoute struct {
	method, path, query string
	// body is the expected JSON body; empty means no body.
	body   string
	token  string
	status int
	answer string
}

// fakeOperator serves route and fails the test when the request differs in
// method, path, query, bearer token or JSON body. The returned counter
// tells how many requests arrived.
func fakeOperator(t *testing.T, route operatorRoute) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != route.method || r.URL.Path != route.path {
			t.Errorf("request %s %s, want %s %s", r.Method, r.URL.Path, route.method, route.path)
		}
		if r.URL.RawQuery != route.query {
			t.Errorf("query %q, want %q", r.URL.RawQuery, route.query)
		}
		wantAuth := ""
		if route.token != "" {
			wantAuth = "Bearer " + route.token
		}
		if got := r.Header.Get("Authorization"); got != wantAuth {
			t.Errorf("Authorization %q, want %q", got, wantAuth)
		}
		raw, _ := io.ReadAll(r.Body)
		if route.body == "" {
			if len(raw) != 0 {
				t.Errorf("unexpected body %s", raw)
			}
		} else {
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			var got, want any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Errorf("body %s is not JSON: %v", raw, err)
			}
			if err := json.Unmarshal([]byte(route.body), &want); err != nil {
				t.Fatalf("bad expected body in test: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("body %s, want %s", raw, route.body)
			}
		}
		status := route.status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, route.answer)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// adminRun runs `payd admin args...` through run, as main does, with env as
// the whole environment.
func adminRun(env map[string]string, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return env[k] }
	err = run(context.Background(), append([]string{"admin"}, args...), getenv, &out, &errOut)
	return out.String(), errOut.String(), err
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

const merchantAnswer = `{"id":"mer_01JTEST","name":"Acme","legal_name":"Acme LLC","created_at":"2026-01-31T12:00:00.123456Z","settlement_delay_days":0}`

func TestAdminMerchantsCreate(t *testing.T) {
	t.Parallel()
	srv, calls := fakeOperator(t, operatorRoute{
		method: "POST", path: "/admin/v1/merchants", token: testAdminToken,
		body:   `{"name":"Acme","legal_name":"Acme LLC","settlement_delay_days":0}`,
		status: http.StatusCreated, answer: merchantAnswer,
	})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": testAdminToken}

	out, _, err := adminRun(env, "merchants", "create", "--name", "Acme", "--legal-name", "Acme LLC", "--settlement-delay-days", "0")
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "human output", out, "mer_01JTEST", "legal_name", "2026-01-31T12:00:00Z")
	if !regexpLine(out, "name", "Acme") {
		t.Errorf("no aligned name line in:\n%s", out)
	}
	if strings.Contains(out, "{") {
		t.Errorf("human output looks like JSON:\n%s", out)
	}

	// --json after the command words, and --admin-url there overriding a
	// wrong one from the environment.
	env["PAYD_ADMIN_URL"] = "http://127.0.0.1:1"
	out, _, err = adminRun(env, "merchants", "create", "--name=Acme", "--legal-name=Acme LLC", "--settlement-delay-days=0", "--json", "--admin-url", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	if got["id"] != "mer_01JTEST" {
		t.Errorf("--json id = %v", got["id"])
	}
	if !strings.Contains(out, "\n  \"id\"") {
		t.Errorf("--json output is not indented:\n%s", out)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// regexpLine reports whether out has a line of key, spaces and value.
func regexpLine(out, key, value string) bool {
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key && strings.TrimSpace(v) == value {
			return true
		}
	}
	return false
}

func TestAdminShopsUpdateSetTypes(t *testing.T) {
	t.Parallel()
	srv, calls := fakeOperator(t, operatorRoute{
		method: "PATCH", path: "/admin/v1/shops/shop_01J", token: testAdminToken,
		body: `{"requests_per_minute":1200,"authorize_request_webhook":true,` +
			`"ip_allowlist":["10.0.0.0/8","1.2.3.4"],"methods_disabled":["sbp"],` +
			`"display_name":"Coffee Corner","statement_name":"123","payment_lifetime_seconds":null,"payments_per_minute":60}`,
		answer: `{"id":"shop_01J","merchant_id":"mer_1","region":"ru","name":"Coffee","default_currency":"RUB",` +
			`"blocked":false,"payments_suspended":false,"settings":{"requests_per_minute":1200,"ip_allowlist":["10.0.0.0/8","1.2.3.4"]},` +
			`"created_at":"2026-01-31T12:00:00Z"}`,
	})
	env := map[string]string{"PAYD_ADMIN_TOKEN": testAdminToken}
	// The shop id sits between flags: flags and arguments mix after the
	// command words. --settings applies first, --set over it.
	out, _, err := adminRun(env, "--admin-url", srv.URL, "shops", "update",
		"--settings", `{"payments_per_minute":60,"display_name":"old"}`,
		"--set", "requests_per_minute=1200",
		"shop_01J",
		"--set", "authorize_request_webhook=true",
		"--set", "ip_allowlist=10.0.0.0/8, 1.2.3.4",
		"--set", "methods_disabled=sbp",
		"--set", "display_name=Coffee Corner",
		"--set", `statement_name="123"`,
		"--set", "payment_lifetime_seconds=null",
	)
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "output", out, "settings.requests_per_minute", "1200", "settings.ip_allowlist", "10.0.0.0/8,1.2.3.4", "live")
	if calls.Load() != 1 {
		t.Errorf("%d requests, want 1", calls.Load())
	}
}

func TestAdminSettingValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ key, value, want string }{
		{"requests_per_minute", "1200", `1200`},
		{"authorize_request_webhook", "false", `false`},
		{"display_name", "Shop", `"Shop"`},
		{"display_name", "", `""`},
		{"display_name", `"42"`, `"42"`},
		{"ip_allowlist", "1.2.3.4", `["1.2.3.4"]`},
		{"ip_allowlist", "1.2.3.4,10.0.0.0/8", `["1.2.3.4","10.0.0.0/8"]`},
		{"ip_allowlist", `["1.2.3.4"]`, `["1.2.3.4"]`},
		{"ip_allowlist", "", `[]`},
		{"methods_disabled", "null", `null`},
		{"embed_origins", "https://shop.example.com, http://localhost:3000", `["https://shop.example.com","http://localhost:3000"]`},
	} {
		if got := string(settingValue(c.key, c.value)); got != c.want {
			t.Errorf("settingValue(%q, %q) = %s, want %s", c.key, c.value, got, c.want)
		}
	}
	if _, err := settingsPatch("", []string{"novalue"}); err == nil {
		t.Error("--set without = was accepted")
	}
	if _, err := settingsPatch("[1]", nil); err == nil {
		t.Error("--settings that is not an object was accepted")
	}
	if _, err := settingsPatch("", nil); err == nil {
		t.Error("an empty update was accepted")
	}
}

func TestAdminKeysIssuePrintsSecret(t *testing.T) {
	t.Parallel()
	const secret = "test_ru_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
	srv, _ := fakeOperator(t, operatorRoute{
		method: "POST", path: "/admin/v1/shops/shop_01J/keys", token: testAdminToken,
		body: `{"mode":"test"}`, status: http.StatusCreated,
		answer: `{"id":"key_01J","shop_id":"shop_01J","mode":"test","hint":"test_ru_…2345","created_at":"2026-01-31T12:00:00Z","secret":"` + secret + `"}`,
	})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": testAdminToken}
	out, _, err := adminRun(env, "keys", "issue", "shop_01J", "--mode", "test")
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "output", out, "key_01J", "secret:  "+secret, "shown only once")
}

func TestAdminErrorAnswer(t *testing.T) {
	t.Parallel()
	srv, _ := fakeOperator(t, operatorRoute{
		method: "POST", path: "/admin/v1/shops", token: testAdminToken,
		body:   `{"merchant_id":"mer_1","region":"xx","name":"Coffee"}`,
		status: http.StatusBadRequest,
		answer: `{"type":"error","code":"invalid_request","description":"must be ru or kz","parameter":"region","request_id":"req_123"}`,
	})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": testAdminToken}
	out, _, err := adminRun(env, "shops", "create", "--merchant", "mer_1", "--region", "xx", "--name", "Coffee")
	if err == nil {
		t.Fatal("an error answer returned no error")
	}
	want := "admin: invalid_request (parameter region): must be ru or kz [request req_123]"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	var apiErr *adminAPIError
	if !errors.As(err, &apiErr) || apiErr.Code != "invalid_request" || apiErr.Status != http.StatusBadRequest {
		t.Errorf("error %#v is not the API error", err)
	}
	if out != "" {
		t.Errorf("output on error: %q", out)
	}
}

func TestAdminClockAdvanceDuration(t *testing.T) {
	t.Parallel()
	srv, calls := fakeOperator(t, operatorRoute{
		method: "POST", path: "/admin/v1/clock/advance", token: testAdminToken,
		body: `{"seconds":86400}`, answer: `{"now":"2026-02-01T12:00:00.5Z"}`,
	})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": testAdminToken}
	out, _, err := adminRun(env, "clock", "advance", "24h")
	if err != nil {
		t.Fatal(err)
	}
	if !regexpLine(out, "now", "2026-02-01T12:00:00Z") {
		t.Errorf("output %q lacks the new time", out)
	}
	if calls.Load() != 1 {
		t.Errorf("%d requests, want 1", calls.Load())
	}
}

func TestAdminParseAdvance(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"3600": 3600, "0": 0, "90m": 5400, "24h": 86400, "1h30m": 5400, "7d": 604800} {
		if got, err := parseAdvance(in); err != nil || got != want {
			t.Errorf("parseAdvance(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "-1h", "1.5s", "d", "1.5d"} {
		if got, err := parseAdvance(in); err == nil {
			t.Errorf("parseAdvance(%q) = %d, want an error", in, got)
		}
	}
}

func TestAdminMissingToken(t *testing.T) {
	t.Parallel()
	srv, _ := fakeOperator(t, operatorRoute{
		method: "GET", path: "/admin/v1/merchants/mer_1", token: "",
		status: http.StatusUnauthorized,
		answer: `{"type":"error","code":"invalid_credentials","description":"missing or wrong operator token","request_id":"req_9"}`,
	})
	_, _, err := adminRun(map[string]string{"PAYD_ADMIN_URL": srv.URL}, "merchants", "get", "mer_1")
	if err == nil {
		t.Fatal("a 401 answer returned no error")
	}
	wantContains(t, "error", err.Error(), "invalid_credentials", "req_9", "--admin-token", "PAYD_ADMIN_TOKEN")
}

func TestAdminWrongTokenNotPrinted(t *testing.T) {
	t.Parallel()
	const wrong = "adm_wrong_secret_value"
	srv, _ := fakeOperator(t, operatorRoute{
		method: "GET", path: "/admin/v1/clock", token: wrong, status: http.StatusUnauthorized,
		answer: `{"type":"error","code":"invalid_credentials","description":"missing or wrong operator token","request_id":"req_9"}`,
	})
	out, errOut, err := adminRun(map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": wrong}, "clock", "now")
	if err == nil {
		t.Fatal("a 401 answer returned no error")
	}
	wantContains(t, "error", err.Error(), "invalid_credentials", "--admin-token")
	if strings.Contains(err.Error()+out+errOut, wrong) {
		t.Errorf("the token was printed: %v %s %s", err, out, errOut)
	}
}

func TestAdminUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	_, _, err := adminRun(map[string]string{"PAYD_ADMIN_URL": addr, "PAYD_ADMIN_TOKEN": testAdminToken}, "shops", "get", "shop_1")
	if err == nil {
		t.Fatal("a closed server gave no error")
	}
	wantContains(t, "error", err.Error(), addr, "--admin-url")
	if strings.Contains(err.Error(), testAdminToken) {
		t.Errorf("the token was printed: %v", err)
	}
}

func TestAdminLists(t *testing.T) {
	t.Parallel()
	srv, _ := fakeOperator(t, operatorRoute{
		method: "GET", path: "/admin/v1/shops", query: "cursor=c_1&limit=2&merchant_id=mer_1", token: testAdminToken,
		answer: `{"items":[` +
			`{"id":"shop_A","merchant_id":"mer_1","region":"ru","name":"Alpha","activated_at":"2026-01-31T12:00:00Z","blocked":false,"payments_suspended":true},` +
			`{"id":"shop_B","merchant_id":"mer_1","region":"kz","name":"Beta","blocked":true,"payments_suspended":false}` +
			`],"next_cursor":"c_2"}`,
	})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": testAdminToken}
	out, _, err := adminRun(env, "shops", "list", "--merchant", "mer_1", "--limit", "2", "--cursor", "c_1")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := [][]string{
		{"ID", "REGION", "NAME", "LIVE", "BLOCKED", "SUSPENDED"},
		{"shop_A", "ru", "Alpha", "yes", "no", "yes"},
		{"shop_B", "kz", "Beta", "no", "yes", "no"},
		{"next", "cursor:", "c_2"},
	}
	if len(lines) != len(want) {
		t.Fatalf("output has %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); !reflect.DeepEqual(got, w) {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
	// tabwriter aligns the columns: REGION starts where ru and kz do.
	if col := strings.Index(lines[0], "REGION"); col != strings.Index(lines[1], "ru") || col != strings.Index(lines[2], "kz") {
		t.Errorf("columns are not aligned:\n%s", out)
	}
}

func TestAdminKeysListTable(t *testing.T) {
	t.Parallel()
	srv, _ := fakeOperator(t, operatorRoute{
		method: "GET", path: "/admin/v1/shops/shop_1/keys", token: testAdminToken,
		answer: `{"items":[{"id":"key_1","shop_id":"shop_1","mode":"live","hint":"live_ru_…abcd","created_at":"2026-01-31T12:00:00.1Z","revoked_at":"2026-02-01T00:00:00Z"}]}`,
	})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": testAdminToken}
	out, _, err := adminRun(env, "keys", "list", "shop_1")
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "output", out, "ID", "EXPIRES", "REVOKED", "key_1", "live_ru_…abcd", "2026-01-31T12:00:00Z", "2026-02-01T00:00:00Z")
	if strings.Contains(out, "next cursor") {
		t.Errorf("a next cursor without one:\n%s", out)
	}
}

func TestAdminHelp(t *testing.T) {
	t.Parallel()
	srv, calls := fakeOperator(t, operatorRoute{})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL}
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"help", "keys"}, {"keys", "help"}, {"keys", "--help"},
		{"keys", "issue", "--help"}, {"keys", "issue", "shop_1", "-h"}, {"shops", "get", "help"},
	} {
		out, _, err := adminRun(env, args...)
		if err != nil {
			t.Errorf("%q: %v", args, err)
		}
		wantContains(t, strings.Join(args, " "), out, "payd admin [global flags] RESOURCE COMMAND")
	}
	out, _, _ := adminRun(env, "keys", "help")
	if !strings.Contains(out, "keys issue SHOP_ID") || strings.Contains(out, "merchants create") {
		t.Errorf("resource help is not limited to the resource:\n%s", out)
	}
	if calls.Load() != 0 {
		t.Errorf("help sent %d requests", calls.Load())
	}
}

func TestAdminUsageErrors(t *testing.T) {
	t.Parallel()
	srv, calls := fakeOperator(t, operatorRoute{})
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL}
	for args, want := range map[string]string{
		"":                         "a resource is required",
		"widgets list":             "unknown resource",
		"shops":                    "a command is required",
		"shops explode shop_1":     "unknown command",
		"shops get":                "SHOP_ID is required",
		"shops get a b":            `unexpected argument "b"`,
		"merchants create":         "--name is required",
		"shops create --name x":    "--merchant is required",
		"keys issue shop_1":        "--mode is required",
		"shops update shop_1":      "nothing to change",
		"merchants list --bogus":   "flag provided but not defined",
		"merchants list --limit x": "invalid value",
	} {
		_, _, err := adminRun(env, strings.Fields(args)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", args, err, want)
		}
	}
	if calls.Load() != 0 {
		t.Errorf("usage errors sent %d requests", calls.Load())
	}
}

// TestAdminFindsDevDataDir: without --admin-url and --admin-token, `payd
// admin` calls the operator API of the `payd serve --dev` whose data
// directory --data-dir (or $PAYD_DATA_DIR) names, with its token, as the
// README's first steps do.
func TestAdminFindsDevDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addr, admin := freeAddr(t), freeAddr(t)
	srv := startServe(t, "--dev", "--test-clock", "--data-dir", dir, "--addr", addr, "--admin-addr", admin)
	waitHealthy(t, http.DefaultClient, "http://"+addr, srv)

	out, _, err := adminRun(nil, "--data-dir", dir, "clock", "advance", "24h")
	if err != nil {
		t.Fatalf("clock advance with the dev data directory: %v", err)
	}
	wantContains(t, "clock advance", out, "now")
	out, _, err = adminRun(map[string]string{"PAYD_DATA_DIR": dir}, "merchants", "list")
	if err != nil {
		t.Fatalf("merchants list with $PAYD_DATA_DIR: %v", err)
	}
	wantContains(t, "merchants list", out, "Demo Merchant")

	// A data directory without dev.json gives no token; the refusal says
	// where the token was looked for.
	empty := t.TempDir()
	_, _, err = adminRun(nil, "--data-dir", empty, "--admin-url", "http://"+admin, "merchants", "list")
	if err == nil {
		t.Fatal("a call without a token succeeded")
	}
	wantContains(t, "error", err.Error(), "invalid_credentials", "--admin-token", filepath.Join(empty, "dev.json"))
}

// TestAdminDevTokenStaysWithItsAddress: the token of dev.json goes only
// to the operator API dev.json names, never to another --admin-url.
func TestAdminDevTokenStaysWithItsAddress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dev := `{"api_url":"http://127.0.0.1:1/v1","admin_url":"http://127.0.0.1:1","admin_token":"adm_dev_secret","shops":[]}`
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), []byte(dev), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, calls := fakeOperator(t, operatorRoute{
		method: "GET", path: "/admin/v1/clock", token: "", status: http.StatusUnauthorized,
		answer: `{"type":"error","code":"invalid_credentials","description":"missing or wrong operator token","request_id":"req_9"}`,
	})
	_, _, err := adminRun(nil, "--data-dir", dir, "--admin-url", srv.URL, "clock", "now")
	if err == nil || calls.Load() != 1 {
		t.Fatalf("a 401 answer: %v (%d calls)", err, calls.Load())
	}
	wantContains(t, "error", err.Error(), "--admin-token")
	if strings.Contains(err.Error(), "adm_dev_secret") {
		t.Errorf("the token was printed: %v", err)
	}
}
