package client

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// transport is the HttpRequestDoer of the generated layer: every call,
// hand-written or raw, passes here to get credentials, an idempotency key,
// retries and a typed error.
type transport struct{ c *Client }

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// SandboxResetTimeout is how long ResetSandbox waits for its answer: a
// minute more than the service lets the reset run before it answers
// (payd.SandboxResetLimit, 15 minutes).
const SandboxResetTimeout = 16 * time.Minute

// callTimeout, a context key, carries the timeout of a call that may take
// longer than the HTTP client's own.
type callTimeout struct{}

func (t *transport) Do(req *http.Request) (*http.Response, error) {
	c := t.c
	ctx := req.Context()
	req.SetBasicAuth(c.shopID, c.secretKey)
	req.Header.Set("User-Agent", c.userAgent)
	// Every POST and PATCH carries a key, so that a retry after a lost
	// answer is a replay, never a second payment or refund. The key is
	// chosen once, here, and so is the same on every attempt.
	// The generated layer writes the header even when its parameter is
	// empty; an empty key is no key.
	if req.Header.Get("Idempotency-Key") == "" {
		req.Header.Del("Idempotency-Key")
	}
	if (req.Method == http.MethodPost || req.Method == http.MethodPatch) &&
		req.Header.Get("Idempotency-Key") == "" && req.Header.Get("Idempotence-Key") == "" {
		req.Header.Set("Idempotency-Key", newIdempotencyKey())
	}
	// A body that cannot be read again (a caller's own io.Reader through a
	// raw WithBody method) allows one attempt only.
	retries := c.maxRetries
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		retries = 0
	}
	hc := c.httpClient
	if d, ok := ctx.Value(callTimeout{}).(time.Duration); ok && hc.Timeout > 0 && hc.Timeout < d {
		longer := *hc
		longer.Timeout = d
		hc = &longer
	}
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 && req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("client: replay the request body: %w", err)
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := hc.Do(r)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if attempt >= retries {
				return nil, fmt.Errorf("client: %s %s: %w", req.Method, req.URL.Path, err)
			}
			if err := c.wait(ctx, c.backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		apiErr := readError(resp)
		if attempt >= retries || !apiErr.retryable() {
			return nil, apiErr
		}
		d := c.backoff(attempt)
		if apiErr.RetryAfter > 0 {
			d = apiErr.RetryAfter
		}
		// A wait that outlasts the caller's deadline would only end in
		// the deadline: answer with the service's error now.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return nil, apiErr
		}
		if err := c.wait(ctx, d); err != nil {
			return nil, err
		}
	}
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if err := c.sleep(ctx, d); err != nil {
		return err
	}
	return ctx.Err()
}

// backoff is the wait before attempt+1 without a Retry-After: exponential
// from minBackoff, capped at maxBackoff, drawn from its upper half.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.minBackoff << min(attempt, 30)
	if d > c.maxBackoff || d <= 0 {
		d = c.maxBackoff
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// readError turns an answer that is not 2xx into an *Error, from the
// contract's Error object when the body is one.
func readError(resp *http.Response) *Error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := parseError(resp.StatusCode, body)
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("X-Request-Id")
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

func newIdempotencyKey() string {
	var b [16]byte
	crand.Read(b[:]) // never fails since Go 1.24
	return "go-" + hex.EncodeToString(b[:])
}
