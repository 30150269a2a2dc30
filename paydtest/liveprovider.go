package paydtest

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/paydhq/payd"
)

// LiveProvider stands in for a live provider adapter (serve.Config's
// LiveProviders) in tests: it takes every attempt at once, or answers
// payd.ErrProviderTimeout while told to, and remembers the attempts it was
// asked for. It sends no notifications and knows nothing when asked for a
// status, so a payment it took stays pending.
type LiveProvider struct {
	name string

	mu       sync.Mutex
	timeout  bool
	attempts []payd.AttemptRequest
}

var _ payd.Provider = (*LiveProvider)(nil)

// NewLiveProvider returns a live provider named name.
func NewLiveProvider(name string) *LiveProvider { return &LiveProvider{name: name} }

// SetTimeout makes every following attempt time out (on) or succeed.
func (p *LiveProvider) SetTimeout(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timeout = on
}

// Attempts returns the ids of the payments the provider was asked to take,
// timed-out attempts included, in order.
func (p *LiveProvider) Attempts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []string{}
	for _, a := range p.attempts {
		out = append(out, a.Payment.ID)
	}
	return out
}

// Name implements payd.Provider.
func (p *LiveProvider) Name() string { return p.name }

// CreateAttempt implements payd.Provider.
func (p *LiveProvider) CreateAttempt(_ context.Context, _ payd.Tx, req payd.AttemptRequest) (*payd.AttemptResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.attempts = append(p.attempts, req)
	if p.timeout {
		return nil, payd.ErrProviderTimeout
	}
	id := p.name + "_" + strconv.Itoa(len(p.attempts))
	res := &payd.AttemptResult{ProviderPaymentID: id, RedirectURL: "https://" + p.name + ".example/pay/" + id}
	if payd.IsQRMethod(req.Method) {
		res.QRData = "https://qr." + req.Method + ".example/" + id
	}
	return res, nil
}

// Capture implements payd.Provider.
func (p *LiveProvider) Capture(context.Context, payd.Tx, string, int64) error { return nil }

// Void implements payd.Provider.
func (p *LiveProvider) Void(context.Context, payd.Tx, string) error { return nil }

// Status implements payd.Provider: the fake never learns an outcome.
func (p *LiveProvider) Status(context.Context, payd.Tx, string, string) (payd.ProviderStatus, string, error) {
	return payd.ProviderStatusUnknown, "", nil
}

// VerifyNotification implements payd.Provider: the fake sends none.
func (p *LiveProvider) VerifyNotification([]byte, string) (*payd.Notification, error) {
	return nil, errors.New("the test live provider sends no notifications")
}
