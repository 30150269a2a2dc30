package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd/internal/serve"
)

// adminAPIError is an error answer of the operator API (the contract's Error
// object), or a non-2xx answer without one.
type adminAPIError struct {
	Status      int    `json:"-"`
	Code        string `json:"code"`
	Description string `json:"description"`
	Parameter   string `json:"parameter"`
	RequestID   string `json:"request_id"`
	// hint suggests a fix for the usual causes of this answer.
	hint string
}

func (e *adminAPIError) Error() string {
	var b strings.Builder
	b.WriteString("admin: ")
	if e.Code != "" {
		b.WriteString(e.Code)
	} else {
		fmt.Fprintf(&b, "HTTP %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Parameter != "" {
		fmt.Fprintf(&b, " (parameter %s)", e.Parameter)
	}
	if e.Description != "" {
		b.WriteString(": " + e.Description)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	if e.hint != "" {
		b.WriteString("; " + e.hint)
	}
	return b.String()
}

// maxAdminAnswer bounds what is read of an answer; operator answers are a
// page of objects at most.
const maxAdminAnswer = 16 << 20

// target fills in what no flag or environment variable gave: the address
// and token that `payd serve --dev` wrote to the dev.json of --data-dir,
// else the default address. The token of dev.json is sent only to the
// address dev.json names.
func (a *adminCLI) target() {
	if a.resolved {
		return
	}
	a.resolved = true
	var dev *serve.DevInfo
	if a.baseURL == "" || a.token == "" {
		// No dev.json (not a --dev data directory): nothing to fill in.
		dev, _ = serve.ReadDev(a.dataDir)
	}
	if a.baseURL == "" {
		a.baseURL = defaultAdminURL
		if dev != nil && dev.AdminURL != "" {
			a.baseURL, a.devURL = dev.AdminURL, true
		}
	}
	if a.token == "" && dev != nil && dev.AdminToken != "" &&
		strings.TrimRight(dev.AdminURL, "/") == strings.TrimRight(a.baseURL, "/") {
		a.token, a.devToken = dev.AdminToken, true
	}
}

// devJSON names the dev.json of --data-dir in messages.
func (a *adminCLI) devJSON() string { return filepath.Join(a.dataDir, "dev.json") }

// call sends one request and returns the answer's body, or an error for a
// transport failure or a non-2xx answer.
func (a *adminCLI) call(method, path string, body any) ([]byte, error) {
	a.target()
	base, err := url.Parse(strings.TrimRight(a.baseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("admin: --admin-url %q is not an http:// or https:// URL", a.baseURL)
	}
	// Redacted drops a password someone put in the URL: messages never
	// carry credentials.
	target := base.Redacted() + path
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("admin: encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(a.ctx, method, base.String()+path, rd)
	if err != nil {
		return nil, fmt.Errorf("admin: %s %s: %w", method, target, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "payd-admin/"+version)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// Without a token no header is sent at all, so the 401 below can say
	// that the token is missing rather than wrong.
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		// The client's error repeats the URL; unwrap it to name the URL
		// once, redacted.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if a.devURL {
			return nil, fmt.Errorf("admin: could not reach the operator API at %s, the admin_url of %s (%s %s): %w; is the payd serve --dev of that data directory running? Set --admin-url or $PAYD_ADMIN_URL (and --admin-token or $PAYD_ADMIN_TOKEN) for another one",
				base.Redacted(), a.devJSON(), method, path, err)
		}
		return nil, fmt.Errorf("admin: could not reach the operator API at %s (%s %s): %w; is payd serve running there? Set --admin-url or $PAYD_ADMIN_URL (and --admin-token or $PAYD_ADMIN_TOKEN)",
			base.Redacted(), method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAdminAnswer))
	if err != nil {
		return nil, fmt.Errorf("admin: %s %s: reading the answer: %w", method, target, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, a.answerError(resp.StatusCode, method, target, path, data)
	}
	return data, nil
}

func (a *adminCLI) answerError(status int, method, target, path string, data []byte) error {
	e := &adminAPIError{}
	if json.Unmarshal(data, e) != nil || e.Code == "" {
		// Not the Error object: a proxy's page, or the router's plain 404
		// for a route the service does not have.
		e = &adminAPIError{Description: method + " " + target}
		if snippet := strings.TrimSpace(string(data)); snippet != "" {
			if len(snippet) > 200 {
				snippet = snippet[:200] + "…"
			}
			e.Description += ": " + snippet
		}
	}
	e.Status = status
	switch {
	case status == http.StatusUnauthorized && a.token == "":
		e.hint = "no operator token given: set --admin-token or $PAYD_ADMIN_TOKEN, or --data-dir to the data directory of a payd serve --dev (its dev.json has the token; none at " + a.devJSON() + ")"
	case status == http.StatusUnauthorized && a.devToken:
		e.hint = "the admin_token of " + a.devJSON() + " was refused: is the service at that address started with this data directory? Set --admin-token or $PAYD_ADMIN_TOKEN"
	case status == http.StatusUnauthorized:
		e.hint = "check --admin-token or $PAYD_ADMIN_TOKEN against the token payd serve runs with"
	case status == http.StatusNotFound && strings.HasPrefix(path, "/admin/v1/clock"):
		e.hint = "the clock routes exist only when the service runs with serve --test-clock (and --admin-url must name the operator listener)"
	case status == http.StatusNotFound && e.Code == "":
		e.hint = "is --admin-url the operator listener (serve --admin-addr) rather than the merchant API?"
	}
	return e
}

// show performs a request and prints its answer: indented JSON with --json,
// text otherwise.
func (a *adminCLI) show(method, path string, body any, kind answerKind) error {
	data, err := a.call(method, path, body)
	if err != nil {
		return err
	}
	if a.json {
		return printJSON(a.stdout, data)
	}
	return printAnswer(a.stdout, data, kind)
}

// listSettings are the ShopSettings fields that hold lists; their --set
// values are comma-separated rather than JSON, since an IP allowlist is
// awkward to quote as a JSON array in a shell.
var listSettings = map[string]bool{"ip_allowlist": true, "methods_disabled": true, "embed_origins": true}

// settingsPatch builds the PATCH body of shops update: the --settings
// object, then each --set over it.
func settingsPatch(settings string, sets []string) (map[string]json.RawMessage, error) {
	patch := map[string]json.RawMessage{}
	if strings.TrimSpace(settings) != "" {
		if err := json.Unmarshal([]byte(settings), &patch); err != nil || patch == nil {
			return nil, usagef("--settings must be a JSON object such as '{\"requests_per_minute\":1200}'")
		}
	}
	for _, s := range sets {
		key, value, ok := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, usagef("--set %q: want key=value", s)
		}
		patch[key] = settingValue(key, value)
	}
	if len(patch) == 0 {
		return nil, usagef("nothing to change: give --set key=value or --settings '{...}'")
	}
	return patch, nil
}

// settingValue turns a --set value into JSON. Valid JSON is kept as it is,
// so numbers and booleans arrive typed and a quoted value forces a string;
// anything else is a string.
func settingValue(key, value string) json.RawMessage {
	v := strings.TrimSpace(value)
	if listSettings[key] {
		if v == "null" || (strings.HasPrefix(v, "[") && json.Valid([]byte(v))) {
			return json.RawMessage(v)
		}
		list := []string{}
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				list = append(list, item)
			}
		}
		b, _ := json.Marshal(list)
		return b
	}
	if v != "" && json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	b, _ := json.Marshal(value)
	return b
}

// parseAdvance reads the argument of clock advance: whole seconds, a Go
// duration (90m, 24h, 1h30m) or whole days (7d), since settlement delays
// are counted in days.
func parseAdvance(s string) (int64, error) {
	var secs int64
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		secs = n
	} else if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > 1<<40 {
			return 0, usagef("%q is not a number of seconds, a duration such as 24h or a number of days such as 7d", s)
		}
		secs = n * 86400
	} else {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, usagef("%q is not a number of seconds, a duration such as 24h or a number of days such as 7d", s)
		}
		if d%time.Second != 0 {
			return 0, usagef("%q is not a whole number of seconds", s)
		}
		secs = int64(d / time.Second)
	}
	if secs < 0 {
		return 0, usagef("the clock only moves forward: %q is negative", s)
	}
	return secs, nil
}
