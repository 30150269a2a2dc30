package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/paydhq/payd/internal/serve"
)

// merchantFlags are the flags of the commands that work as a shop's
// developer would, with its test key: listen, trigger and sandbox. With
// none given they read the dev.json that `payd serve --dev` wrote to the
// data directory.
type merchantFlags struct {
	apiURL, shopID, key, dataDir *string
	adminURL, adminToken         *string
}

func addMerchantFlags(f *envFlags, operator bool) *merchantFlags {
	m := &merchantFlags{
		apiURL:  f.String("api-url", "", "merchant API base (default: dev.json's, else http://127.0.0.1:8080/v1)"),
		shopID:  f.String("shop-id", "", "shop id (default: the first shop of dev.json)"),
		key:     f.Secret("secret-key", "a test key of the shop (default: dev.json's)", secretAll),
		dataDir: f.String("data-dir", "./payd-data", "data directory of a payd serve --dev"),
	}
	if operator {
		m.adminURL = f.String("admin-url", "", "operator API base (default: dev.json's)")
		m.adminToken = f.Secret("admin-token", "operator API token (default: dev.json's)", secretAll)
	}
	return m
}

// merchantClient calls the merchant API with one shop's test key, and the
// operator API when it knows where and how.
type merchantClient struct {
	api, shopID, key string
	admin, token     string
	// devJSON names where the defaults came from, for messages.
	devJSON string
	http    *http.Client
	// userAgent names the command in the service's request log.
	userAgent string
	// trace, when set, receives a line per request.
	trace io.Writer
}

// resolve fills in what no flag gave from dev.json; the operator token of
// dev.json goes only to the operator address dev.json names.
func (m *merchantFlags) resolve(cmd string) (*merchantClient, error) {
	c := &merchantClient{api: *m.apiURL, shopID: *m.shopID, key: *m.key, devJSON: filepath.Join(*m.dataDir, "dev.json"),
		http: &http.Client{Timeout: 30 * time.Second}, userAgent: "payd-" + cmd + "/" + version}
	if m.adminURL != nil {
		c.admin, c.token = *m.adminURL, *m.adminToken
	}
	dev, _ := serve.ReadDev(*m.dataDir)
	if dev != nil {
		if c.api == "" {
			c.api = dev.APIURL
		}
		if c.shopID == "" && c.key == "" && len(dev.Shops) > 0 {
			c.shopID, c.key = dev.Shops[0].ShopID, dev.Shops[0].SecretKey
		}
		if m.adminURL != nil {
			if c.admin == "" {
				c.admin = dev.AdminURL
			}
			if c.token == "" && strings.TrimRight(dev.AdminURL, "/") == strings.TrimRight(c.admin, "/") {
				c.token = dev.AdminToken
			}
		}
	}
	if c.api == "" {
		c.api = "http://127.0.0.1:8080/v1"
	}
	c.api, c.admin = strings.TrimRight(c.api, "/"), strings.TrimRight(c.admin, "/")
	if c.shopID == "" || c.key == "" {
		return nil, fmt.Errorf("%s: --shop-id and --secret-key are required (or --data-dir of a payd serve --dev; no %s)", cmd, c.devJSON)
	}
	if !strings.HasPrefix(c.key, "test_") {
		return nil, fmt.Errorf("%s: only test keys: this command works on sandbox data", cmd)
	}
	if u, err := url.Parse(c.api); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: --api-url %q is not an http(s) URL", cmd, c.api)
	}
	return c, nil
}

// apiError is a non-2xx answer: the contract's Error object when there is
// one.
type apiError struct {
	Status      int
	Method      string
	Path        string
	Code        string `json:"code"`
	Description string `json:"description"`
	Parameter   string `json:"parameter"`
}

func (e *apiError) Error() string {
	s := fmt.Sprintf("%s %s: %d", e.Method, e.Path, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Parameter != "" {
		s += " (parameter " + e.Parameter + ")"
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// do sends one request to the merchant API (operator false) or the
// operator API and decodes a JSON answer into out (when not nil).
func (c *merchantClient) do(ctx context.Context, operator bool, method, path, idemKey string, body, out any) error {
	base := c.api
	if operator {
		if c.admin == "" || c.token == "" {
			return errNoOperator
		}
		base = c.admin
	}
	var rd io.Reader
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	if operator {
		req.Header.Set("Authorization", "Bearer "+c.token)
	} else {
		req.SetBasicAuth(c.shopID, c.key)
	}
	if c.trace != nil {
		who := "api"
		if operator {
			who = "operator"
		}
		fmt.Fprintf(c.trace, "  %s %s %s", who, method, path)
		if raw != nil {
			fmt.Fprintf(c.trace, " %s", raw)
		}
		fmt.Fprintln(c.trace)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, base+path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &apiError{}
		json.Unmarshal(data, e)
		e.Status, e.Method, e.Path = resp.StatusCode, method, path
		return e
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if raw, ok := out.(*[]byte); ok {
			*raw = data
			return nil
		}
		return json.Unmarshal(data, out)
	}
	return nil
}

// errNoOperator: the event needs the operator API and no address or token
// is known.
var errNoOperator = errors.New("no operator access: give --admin-url and --admin-token (or $PAYD_ADMIN_URL, $PAYD_ADMIN_TOKEN), or --data-dir of a payd serve --dev")
