package paydtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// Response is a finished HTTP exchange.
type Response struct {
	Request *http.Request
	Status  int
	Header  http.Header
	Body    []byte
}

// JSON decodes the body into a map.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response body is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// Decode decodes the body into v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// ErrorCode returns the `code` of an Error body.
func (r *Response) ErrorCode() string {
	var e struct{ Code string }
	json.Unmarshal(r.Body, &e)
	return e.Code
}

// ErrorParam returns the `parameter` of an Error body.
func (r *Response) ErrorParam() string {
	var e struct {
		Parameter string `json:"parameter"`
	}
	json.Unmarshal(r.Body, &e)
	return e.Parameter
}

// Expect fails the test unless the status is want.
func (r *Response) Expect(t testing.TB, want int) *Response {
	t.Helper()
	if r.Status != want {
		t.Fatalf("%s %s: status %d, want %d\n%s", r.Request.Method, r.Request.URL.Path, r.Status, want, r.Body)
	}
	return r
}

// ExpectError fails the test unless the answer is the Error object with
// status and code (and parameter, when param is not "-").
func (r *Response) ExpectError(t testing.TB, status int, code payd.ErrorCode, param string) {
	t.Helper()
	var e struct {
		Type, Code, Description, Parameter, RequestID string `json:"-"`
	}
	var m map[string]any
	json.Unmarshal(r.Body, &m)
	e.Type, _ = m["type"].(string)
	e.Code, _ = m["code"].(string)
	e.Parameter, _ = m["parameter"].(string)
	e.RequestID, _ = m["request_id"].(string)
	if r.Status != status || e.Code != string(code) || e.Type != "error" {
		t.Fatalf("%s %s: got %d %s, want %d %s\n%s", r.Request.Method, r.Request.URL.Path, r.Status, e.Code, status, code, r.Body)
	}
	if param != "-" && e.Parameter != param {
		t.Fatalf("%s %s: parameter %q, want %q\n%s", r.Request.Method, r.Request.URL.Path, e.Parameter, param, r.Body)
	}
	if e.RequestID == "" || e.RequestID != r.Header.Get("X-Request-Id") {
		t.Fatalf("request_id %q does not equal X-Request-Id %q", e.RequestID, r.Header.Get("X-Request-Id"))
	}
}

// Do sends a request to base+path. body may be nil, a string, []byte or a
// value marshalled as JSON. Every answer of the merchant API is checked
// against the OpenAPI document.
func (e *Env) Do(method, base, path string, body any, header http.Header) *Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		e.T.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if rd != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := &Response{Request: req, Status: resp.StatusCode, Header: resp.Header, Body: raw}
	// Conventions: every response carries X-Request-Id; Errors: 429 and 503
	// carry Retry-After.
	if r.Header.Get("X-Request-Id") == "" {
		e.T.Errorf("%s %s: no X-Request-Id header", method, path)
	}
	if (r.Status == 429 || r.Status == 503) && r.Header.Get("Retry-After") == "" {
		e.T.Errorf("%s %s: %d without Retry-After", method, path, r.Status)
	}
	if base == e.API.URL && strings.HasPrefix(path, "/v1/") && e.validator != nil {
		e.validator.Validate(e.T, r)
	}
	return r
}

// Admin calls the operator API with the operator token.
func (e *Env) AdminDo(method, path string, body any) *Response {
	e.T.Helper()
	return e.Do(method, e.Admin.URL, path, body, http.Header{"Authorization": {"Bearer " + e.Token}})
}

// Shop is a shop with its keys.
type Shop struct {
	ID, MerchantID string
	Region         payd.Region
	TestKey        string
	LiveKey        string
}

// NewShop creates a merchant (or uses merchantID) and a shop in region with
// a test and a live key, through the operator API.
func (e *Env) NewShop(region payd.Region, merchantID string) *Shop {
	e.T.Helper()
	if merchantID == "" {
		var m struct{ ID string }
		e.AdminDo("POST", "/admin/v1/merchants", map[string]any{"name": "Test Merchant"}).Expect(e.T, 201).Decode(e.T, &m)
		merchantID = m.ID
	}
	var s struct{ ID string }
	e.AdminDo("POST", "/admin/v1/shops", map[string]any{"merchant_id": merchantID, "region": region, "name": "Shop " + string(region)}).
		Expect(e.T, 201).Decode(e.T, &s)
	shop := &Shop{ID: s.ID, MerchantID: merchantID, Region: region}
	var k struct{ Secret string }
	e.AdminDo("POST", "/admin/v1/shops/"+s.ID+"/keys", map[string]any{"mode": "test"}).Expect(e.T, 201).Decode(e.T, &k)
	shop.TestKey = k.Secret
	e.AdminDo("POST", "/admin/v1/shops/"+s.ID+"/keys", map[string]any{"mode": "live"}).Expect(e.T, 201).Decode(e.T, &k)
	shop.LiveKey = k.Secret
	return shop
}

// As returns a client acting with the shop's key (test unless live).
func (e *Env) As(s *Shop, live bool) *Client {
	key := s.TestKey
	if live {
		key = s.LiveKey
	}
	return &Client{env: e, user: s.ID, pass: key}
}

// Client calls the merchant API with one key.
type Client struct {
	env        *Env
	user, pass string
	// base, when set, replaces the service's address: a second
	// instance's listener.
	base string
}

// WithKey returns a client using another secret for the same shop.
func (c *Client) WithKey(secret string) *Client {
	return &Client{env: c.env, user: c.user, pass: secret, base: c.base}
}

// At returns the same client sending to another listener of the service
// (base is its URL), as a load balancer would to another instance.
func (c *Client) At(base string) *Client {
	return &Client{env: c.env, user: c.user, pass: c.pass, base: base}
}

// Do sends an authenticated request; extra headers may be passed as
// alternating names and values.
func (c *Client) Do(method, path string, body any, kv ...string) *Response {
	c.env.T.Helper()
	h := http.Header{}
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(c.user, c.pass)
	h.Set("Authorization", req.Header.Get("Authorization"))
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	base := c.env.API.URL
	if c.base != "" {
		base = c.base
	}
	return c.env.Do(method, base, path, body, h)
}

// Get is Do with GET.
func (c *Client) Get(path string) *Response {
	c.env.T.Helper()
	return c.Do("GET", path, nil)
}

// Post sends a POST with an Idempotency-Key.
func (c *Client) Post(path, idemKey string, body any) *Response {
	c.env.T.Helper()
	return c.Do("POST", path, body, "Idempotency-Key", idemKey)
}

// Eventually polls fn every 50 ms until it returns true or 15 seconds pass:
// outcomes arrive through jobs, a little after the request that caused
// them. It waits for something to happen; to see that something did not,
// call Env.Settle and then look.
func Eventually(t testing.TB, what string, fn func() bool) {
	t.Helper()
	EventuallyWithin(t, 15*time.Second, what, fn)
}

// EventuallyWithin is Eventually with a bound of its own, for what takes
// longer (a process starting, a retry the job scheduler picks up on its
// pass) or comes from outside the service.
func EventuallyWithin(t testing.TB, d time.Duration, what string, fn func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !fn() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitStatus waits until the payment has status and returns it.
func (c *Client) WaitStatus(id, status string) map[string]any {
	c.env.T.Helper()
	var last map[string]any
	Eventually(c.env.T, "payment "+id+" to be "+status, func() bool {
		last = c.Get("/v1/payments/"+id).Expect(c.env.T, 200).JSON(c.env.T)
		return last["status"] == status
	})
	return last
}
