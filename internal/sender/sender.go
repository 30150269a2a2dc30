// Package sender posts webhook deliveries over HTTPS the way the contract
// requires: certificates verified, redirects never followed, a time limit,
// and every address of the destination checked at connect time, so a DNS
// answer that changed after the endpoint was registered cannot point a
// delivery at a private network.
package sender

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/tracing"
	"github.com/paydhq/payd/internal/urlguard"
)

// Options loosen the rules for local development only.
type Options struct {
	// AllowHosts are exact hosts allowed despite the public-address rule.
	AllowHosts []string
	// RootCAs replaces the system roots (the system roots plus an extra CA
	// file, --webhook-ca-file); nil uses the system roots.
	RootCAs *x509.CertPool
	// LookupNetIP resolves names; nil uses the system resolver. Tests give
	// a stub to play a DNS answer that points at a private address.
	LookupNetIP func(ctx context.Context, network, host string) ([]netip.Addr, error)
	// TracerProvider, when set, gives every request a client span and the
	// receiver a W3C traceparent (tracing.Transport). Nil: neither.
	TracerProvider trace.TracerProvider
}

// HTTP is payd.Sender over net/http.
type HTTP struct {
	client *http.Client
}

var _ payd.Sender = (*HTTP)(nil)

// New returns a sender.
func New(opts Options) *HTTP {
	dialer := &urlguard.Dialer{
		Options:     urlguard.Options{AllowHosts: opts.AllowHosts},
		Dialer:      &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second},
		LookupNetIP: opts.LookupNetIP,
	}
	tr := &http.Transport{
		// A proxy would be the only address checked: never use one.
		Proxy:             nil,
		DialContext:       dialer.DialContext,
		TLSClientConfig:   &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: opts.RootCAs},
		ForceAttemptHTTP2: true,
		// Up to as many idle connections per host as deliveries the
		// service sends at once (dispatch.Options): endpoints of many
		// shops often share one host, and every connection closed for
		// want of room is a new TLS handshake on the next delivery.
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	return &HTTP{client: &http.Client{
		Transport: tracing.Transport(tr, opts.TracerProvider),
		// A 3xx is an answer like any other non-2xx: a failed attempt.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Send implements payd.Sender.
func (h *HTTP) Send(ctx context.Context, url string, headers map[string]string, body []byte, timeout time.Duration) (*payd.SendResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := h.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, errors.New("no answer within " + timeout.String())
		}
		return nil, err
	}
	defer resp.Body.Close()
	// Only the beginning of the answer is kept for the attempt log.
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, payd.MaxLoggedResponse))
	return &payd.SendResult{StatusCode: resp.StatusCode, StatusText: http.StatusText(resp.StatusCode), Body: kept,
		Duration: time.Since(start)}, nil
}
