package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Version is the version of this client, sent in the User-Agent header.
const Version = "1.0.0"

// Client calls the merchant API of payd as one shop. It holds no global
// state: any number of clients, for any number of shops, may live side by
// side, and a Client is safe for concurrent use.
type Client struct {
	raw *ClientWithResponses

	baseURL    string
	shopID     string
	secretKey  string
	httpClient *http.Client
	userAgent  string
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	// sleep waits between attempts; tests replace it to run the service's
	// clock instead of the wall clock.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option tunes a Client made by New.
type Option func(*Client)

// HTTPClient makes the client send its requests with hc (timeouts, proxies,
// TLS roots, instrumentation). Without it, a client of its own with a
// 60-second timeout is used.
func HTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.httpClient = hc }
}

// MaxRetries bounds how many times one call is sent again after a network
// error, 409 idempotency_in_progress, 429 or 503 (default 3; 0 sends each
// call once).
func MaxRetries(n int) Option {
	return func(c *Client) { c.maxRetries = max(n, 0) }
}

// Backoff sets the first wait between attempts and the largest one (default
// 500 ms and 10 s). Each wait doubles the last one, up to max, and is drawn
// at random from its upper half so that many clients do not retry in step.
// A Retry-After header given by the service takes the place of the backoff.
func Backoff(first, max time.Duration) Option {
	return func(c *Client) { c.minBackoff, c.maxBackoff = first, max }
}

// AppInfo names the merchant's application in the User-Agent header,
// before the client's own name and version ("shop-backend/2.3").
func AppInfo(nameVersion string) Option {
	return func(c *Client) { c.userAgent = nameVersion + " " + c.userAgent }
}

// New returns a client of the merchant API at baseURL (the address that
// ends with /v1, for example https://pay.example.com/v1) authenticated as
// shopID with secretKey (a test or a live key).
func New(baseURL, shopID, secretKey string, opts ...Option) (*Client, error) {
	if baseURL == "" || shopID == "" || secretKey == "" {
		return nil, errors.New("client: the base URL, the shop id and the secret key are required")
	}
	c := &Client{
		baseURL: strings.TrimRight(baseURL, "/"), shopID: shopID, secretKey: secretKey,
		httpClient: &http.Client{Timeout: 60 * time.Second},
		userAgent:  "payd-go/" + Version,
		maxRetries: 3, minBackoff: 500 * time.Millisecond, maxBackoff: 10 * time.Second,
		sleep: sleepContext,
	}
	for _, o := range opts {
		o(c)
	}
	raw, err := NewClientWithResponses(c.baseURL, WithHTTPClient(&transport{c: c}))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	c.raw = raw
	return c, nil
}

// Raw returns the generated client of every operation of the contract. It
// sends through the same machinery as the methods of Client (credentials,
// idempotency keys, retries, *Error for every answer that is not 2xx), for
// the operations and parameters the hand-written methods leave out.
func (c *Client) Raw() *ClientWithResponses { return c.raw }

// WithIdempotencyKey sets the Idempotency-Key of one call; without it every
// POST and PATCH gets a fresh random key, reused by the retries of that
// call. Pass the same key again to make a later call a replay of an
// earlier one (after a crash of the caller, for instance).
func WithIdempotencyKey(key string) RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("Idempotency-Key", key)
		return nil
	}
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
