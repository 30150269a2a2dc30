package paydtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/paydhq/payd"
)

// LiveProvider stands in for a live provider adapter (serve.Config's
// LiveProviders) in tests: it takes every attempt at once, or answers
// payd.ErrProviderTimeout while told to, and remembers the attempts it was
// asked for. It knows nothing when asked for a status and sends a
// notification only when a test tells it to (Notify), so a payment it took
// stays pending until then.
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

// Notify has the provider report n to the service, signed, as a live
// adapter's notification endpoint would hand it over; the service applies
// it before Notify returns.
func (p *LiveProvider) Notify(ctx context.Context, svc *payd.Service, n payd.Notification) error {
	payload, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return svc.HandleProviderNotification(ctx, p.name, payload, p.sign(payload))
}

func (p *LiveProvider) sign(payload []byte) string {
	sum := sha256.Sum256(append([]byte(p.name+"\x00"), payload...))
	return hex.EncodeToString(sum[:])
}

// VerifyNotification implements payd.Provider: it takes what Notify signed.
func (p *LiveProvider) VerifyNotification(payload []byte, signature string) (*payd.Notification, error) {
	if signature != p.sign(payload) {
		return nil, errors.New("bad signature")
	}
	var n payd.Notification
	if err := json.Unmarshal(payload, &n); err != nil {
		return nil, err
	}
	return &n, nil
}
