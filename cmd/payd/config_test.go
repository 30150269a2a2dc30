package main

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paydhq/payd/deploy"
)

// sentinel is in every secret's sample value; --print-config must never
// show it.
const sentinel = "s3cr3t-sentinel"

// serveSetting is one `payd serve` setting: a value it takes, one it
// refuses (empty: every string is taken), whether it is a secret, and
// what else must be given with it.
type serveSetting struct {
	good, bad string
	secret    bool
	with      []string
}

// serveSettings lists every setting of `payd serve`. A setting added to
// serve and not here fails TestServeSettingsListed: whoever adds one says
// here whether it is a secret, and the tests below then check that it is
// masked.
func serveSettings(t *testing.T) map[string]serveSetting {
	key := testSecretsKey(t)
	keyFile := filepath.Join(t.TempDir(), "secrets.key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]serveSetting{
		"addr":                     {good: "127.0.0.1:18080"},
		"admin-addr":               {good: "127.0.0.1:18081"},
		"dashboard-addr":           {good: "127.0.0.1:18082"},
		"admin-token":              {good: "adm_" + sentinel, secret: true},
		"database-url":             {good: "postgres://payd:" + sentinel + "@db1:5432,db2:5432/payd?sslmode=require&sslpassword=" + sentinel, secret: true},
		"data-dir":                 {good: "/var/lib/payd"},
		"public-url":               {good: "https://pay.example.com"},
		"tls-cert":                 {good: "/etc/payd/cert.pem", with: []string{"--tls-key", "/etc/payd/key.pem"}},
		"tls-key":                  {good: "/etc/payd/key.pem", with: []string{"--tls-cert", "/etc/payd/cert.pem"}},
		"behind-tls-proxy":         {good: "true", bad: "yes-please"},
		"dev":                      {good: "true", bad: "yes-please"},
		"test-clock":               {good: "true", bad: "on"},
		"log-format":               {good: "json", bad: "xml"},
		"webhook-allow-host":       {good: "hooks.example.com"},
		"webhook-ca-file":          {good: "/etc/payd/ca.pem"},
		"webhook-max-in-flight":    {good: "64", bad: "abc"},
		"webhook-per-endpoint":     {good: "8", bad: "-1"},
		"trusted-proxy":            {good: "10.0.0.0/8", bad: "not-an-address"},
		"auth-failures-per-minute": {good: "30", bad: "many"},
		"password-checks":          {good: "4", bad: "-4"},
		"redis-url":                {good: "redis://:" + sentinel + "@127.0.0.1:6379/0", secret: true},
		"job-rescue-after":         {good: "10m0s", bad: "30s"},
		"drain-delay":              {good: "15s", bad: "5"},
		"session-idle":             {good: "20m0s", bad: "1s"},
		"session-absolute":         {good: "8h0m0s", bad: "8"},
		"stage":                    {good: "M5", bad: "M9"},
		"secrets-key-file":         {good: keyFile, bad: filepath.Join(t.TempDir(), "missing.key")},
		"secrets-key":              {good: key, bad: "k1:" + sentinel, secret: true},
		"trace":                    {good: "true", bad: "maybe"},
	}
}

func serveSettingsDefined(t *testing.T) []*setting {
	t.Helper()
	o, err := parseServe(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return o.settings
}

// TestServeSettingsListed: the table above is every setting serve has,
// its secrets are the ones serve masks, each has its environment twin in
// the help, and each secret its _FILE twin.
func TestServeSettingsListed(t *testing.T) {
	t.Parallel()
	table := serveSettings(t)
	var help bytes.Buffer
	if err := run(context.Background(), []string{"serve", "--help"}, func(string) string { return "" }, &help, io.Discard); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range serveSettingsDefined(t) {
		seen[s.name] = true
		c, ok := table[s.name]
		if !ok {
			t.Errorf("serve's setting %q is not in serveSettings: add it, saying whether it is a secret", s.name)
			continue
		}
		if c.secret != (s.secret != public) {
			t.Errorf("%s: secret in the table %v, masked by serve %v", s.name, c.secret, s.secret != public)
		}
		if c.secret && !s.fileTwin && s.name != "secrets-key" {
			t.Errorf("%s is a secret without a %s_FILE twin", s.name, envName(s.name))
		}
		if !strings.Contains(help.String(), envName(s.name)) {
			t.Errorf("serve --help does not name %s", envName(s.name))
		}
		if s.fileTwin && !strings.Contains(help.String(), envName(s.name)+"_FILE") {
			t.Errorf("serve --help does not name %s_FILE", envName(s.name))
		}
	}
	for name := range table {
		if !seen[name] {
			t.Errorf("serveSettings lists %q, which serve does not have", name)
		}
	}
}

// printConfigLine runs serve --print-config and returns the line of the
// setting labelled label.
func printConfigLine(t *testing.T, args []string, env map[string]string, label string) (line, all string, err error) {
	t.Helper()
	var stdout bytes.Buffer
	err = run(context.Background(), append([]string{"serve", "--print-config"}, args...), func(k string) string { return env[k] }, &stdout, io.Discard)
	for l := range strings.Lines(stdout.String()) {
		if f := strings.Fields(l); len(f) > 0 && f[0] == label {
			line = strings.TrimSpace(l)
		}
	}
	return line, stdout.String(), err
}

// TestServeSettingSources: every setting taken from its flag, its
// environment variable and, for secrets, a file, is shown by
// --print-config with that source, and secrets are masked.
func TestServeSettingSources(t *testing.T) {
	t.Parallel()
	for _, s := range serveSettingsDefined(t) {
		c := serveSettings(t)[s.name]
		sources := []string{"flag", "environment", "file"}
		switch {
		case s.envOnly:
			sources = []string{"environment"}
		case !s.fileTwin:
			sources = sources[:2]
		}
		for _, source := range sources {
			t.Run(s.name+"/"+source, func(t *testing.T) {
				t.Parallel()
				// The key is given unless the setting tested is the key.
				env := map[string]string{}
				if s.name != "secrets-key" && s.name != "secrets-key-file" {
					env[secretsKeyEnv] = testSecretsKey(t)
				}
				args := slices.Clone(c.with)
				var want string
				switch source {
				case "flag":
					args = append(args, "--"+s.name+"="+c.good)
					want = "flag"
				case "environment":
					env[envName(s.name)] = c.good
					want = "environment " + envName(s.name)
				case "file":
					path := filepath.Join(t.TempDir(), s.name)
					if err := os.WriteFile(path, []byte(c.good+"\n"), 0o600); err != nil {
						t.Fatal(err)
					}
					env[envName(s.name)+"_FILE"] = path
					want = "file " + envName(s.name) + "_FILE=" + path
				}
				line, all, err := printConfigLine(t, args, env, s.label())
				if err != nil {
					t.Fatalf("serve --print-config: %v", err)
				}
				if !strings.HasSuffix(line, want) {
					t.Errorf("line %q does not end with the source %q", line, want)
				}
				if strings.Contains(all, sentinel) {
					t.Errorf("a secret is shown:\n%s", all)
				}
				if !c.secret && !strings.Contains(line, `"`+c.good+`"`) {
					t.Errorf("line %q does not show the value %q", line, c.good)
				}
				if c.secret && !strings.Contains(line, masked) {
					t.Errorf("line %q shows no mask", line)
				}
			})
		}
	}
}

// TestServeSettingRefused: a value a setting does not take stops the
// start naming the flag, and the variable when it came from there,
// without repeating a secret.
func TestServeSettingRefused(t *testing.T) {
	t.Parallel()
	for _, s := range serveSettingsDefined(t) {
		c := serveSettings(t)[s.name]
		if c.bad == "" {
			continue
		}
		for _, source := range []string{"flag", "environment"} {
			if source == "flag" && s.envOnly {
				continue
			}
			t.Run(s.name+"/"+source, func(t *testing.T) {
				t.Parallel()
				env := map[string]string{}
				if s.name != "secrets-key" && s.name != "secrets-key-file" {
					env[secretsKeyEnv] = testSecretsKey(t)
				}
				args := slices.Clone(c.with)
				wants := []string{s.label()}
				if source == "flag" {
					args = append(args, "--"+s.name+"="+c.bad)
				} else {
					env[envName(s.name)] = c.bad
					wants = append(wants, envName(s.name))
				}
				_, _, err := printConfigLine(t, args, env, s.label())
				if err == nil {
					t.Fatalf("%s %q was taken", source, c.bad)
				}
				for _, w := range wants {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("the refusal %q does not name %s", err, w)
					}
				}
				if strings.Contains(err.Error(), sentinel) {
					t.Errorf("the refusal repeats the secret: %v", err)
				}
			})
		}
	}
}

// TestSecretFileTwin: a secret's variable and its file at once, an
// unreadable file and an empty one are refused naming the setting; one
// line ending is trimmed and the rest kept.
func TestSecretFileTwin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	token := write("token", "adm_one\r\n")
	for name, c := range map[string]struct {
		env  map[string]string
		want []string
	}{
		"Both":       {env: map[string]string{"PAYD_ADMIN_TOKEN": "adm_two", "PAYD_ADMIN_TOKEN_FILE": token}, want: []string{"PAYD_ADMIN_TOKEN and PAYD_ADMIN_TOKEN_FILE", "--admin-token"}},
		"Unreadable": {env: map[string]string{"PAYD_DATABASE_URL_FILE": filepath.Join(dir, "missing")}, want: []string{"PAYD_DATABASE_URL_FILE", "--database-url", "missing"}},
		"Empty":      {env: map[string]string{"PAYD_REDIS_URL_FILE": write("empty", "\n")}, want: []string{"PAYD_REDIS_URL_FILE", "--redis-url", "empty"}},
	} {
		c.env[secretsKeyEnv] = testSecretsKey(t)
		_, _, err := printConfigLine(t, nil, c.env, "")
		if err == nil {
			t.Errorf("%s: taken", name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not name %s", name, err, w)
			}
		}
	}

	// The value read is the file's without its line ending: the
	// operator API takes the token so written.
	o, err := parseServe(nil, func(k string) string {
		return map[string]string{"PAYD_ADMIN_TOKEN_FILE": write("token2", "adm_one\n\n")}[k]
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.adminToken != "adm_one\n" {
		t.Errorf("admin token from a file = %q, want one line ending trimmed", o.adminToken)
	}
	o, err = parseServe(nil, func(k string) string { return map[string]string{"PAYD_ADMIN_TOKEN_FILE": token}[k] }, io.Discard)
	if err != nil || o.adminToken != "adm_one" {
		t.Errorf("admin token from a CRLF file = %q, %v", o.adminToken, err)
	}
}

// TestMaskURL: a URL keeps what an operator checks and loses its
// passwords; what is not a URL is masked whole.
func TestMaskURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://payd:pw@db1:5432,db2:5432/payd?sslmode=require&password=pw": "postgres://payd:" + masked + "@db1:5432,db2:5432/payd?sslmode=require&password=" + masked,
		"postgres://payd@db/payd":            "postgres://payd@db/payd",
		"redis://:p@ss:w@r:6379/0":           "redis://:" + masked + "@r:6379/0",
		"rediss://default:pw@r.example:6380": "rediss://default:" + masked + "@r.example:6380",
		"host=db user=payd password=pw":      masked,
	} {
		if got := maskURL(in); got != want {
			t.Errorf("maskURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMigrateSettingsFromEnvironment: migrate's settings have their twins
// too: its data directory from the environment, its database URL from a
// file.
func TestMigrateSettingsFromEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	urlFile := filepath.Join(t.TempDir(), "database-url")
	if err := os.WriteFile(urlFile, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PAYD_DATA_DIR": dir, "PAYD_DATABASE_URL_FILE": urlFile}
	err := run(context.Background(), []string{"migrate"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "PAYD_DATABASE_URL_FILE") {
		t.Fatalf("migrate with an empty database URL file: %v", err)
	}
	delete(env, "PAYD_DATABASE_URL_FILE")
	if err := run(context.Background(), []string{"migrate"}, func(k string) string { return env[k] }, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 {
		t.Fatalf("migrate wrote nothing in PAYD_DATA_DIR %s", dir)
	}
}

// TestSystemdEnvironmentExample: deploy/systemd/payd.env as shipped is a
// configuration serve takes, and each of its variables is a setting's.
func TestSystemdEnvironmentExample(t *testing.T) {
	t.Parallel()
	env := deploy.Environment(deploy.SystemdEnvironment())
	if len(env) == 0 {
		t.Fatal("payd.env sets nothing")
	}
	given := maps.Clone(env)
	env[secretsKeyEnv] = testSecretsKey(t)
	_, all, err := printConfigLine(t, nil, env, "")
	if err != nil {
		t.Fatalf("serve --print-config with payd.env: %v", err)
	}
	for k := range given {
		if !strings.Contains(all, "environment "+k+"\n") {
			t.Errorf("payd.env's %s is no setting of serve:\n%s", k, all)
		}
	}
}

// TestPrintConfigTouchesNothing: --print-config binds no port (one held
// by another listener does not stop it) and makes no data directory, even
// with --dev, which would make one with its files.
func TestPrintConfigTouchesNothing(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := filepath.Join(t.TempDir(), "data")
	var stdout bytes.Buffer
	err = run(context.Background(), []string{"serve", "--print-config", "--dev", "--data-dir", dir, "--addr", held.Addr().String()},
		func(string) string { return "" }, &stdout, io.Discard)
	if err != nil {
		t.Fatalf("serve --print-config: %v", err)
	}
	if !strings.Contains(stdout.String(), held.Addr().String()) {
		t.Errorf("the output does not show --addr:\n%s", stdout.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("--print-config made the data directory %s (%v)", dir, err)
	}
}
