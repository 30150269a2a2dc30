package paydtest

import (
	"context"
	"sync"

	"github.com/paydhq/payd"
)

// LivePayoutProvider stands in for a live payout adapter
// (serve.Config's LivePayoutProviders) in tests: it takes every payout,
// remembers the destinations it was handed (which payd itself never
// keeps), and answers status queries with what a test told it (processing
// until then).
type LivePayoutProvider struct {
	name string

	mu       sync.Mutex
	accepted []payd.PayoutDestination
	result   payd.PayoutResult
	// byRef is the provider's payout id of each reference it took.
	byRef map[string]string
}

var _ payd.PayoutProvider = (*LivePayoutProvider)(nil)

// NewLivePayoutProvider returns a live payout provider named name.
func NewLivePayoutProvider(name string) *LivePayoutProvider {
	return &LivePayoutProvider{name: name, result: payd.PayoutResult{Status: payd.PayoutProcessing}}
}

// Decide sets the answer of the following status queries.
func (p *LivePayoutProvider) Decide(r payd.PayoutResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.result = r
}

// Accepted returns the destinations of the payouts taken, in order.
func (p *LivePayoutProvider) Accepted() []payd.PayoutDestination {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]payd.PayoutDestination(nil), p.accepted...)
}

// Name implements payd.PayoutProvider.
func (p *LivePayoutProvider) Name() string { return p.name }

// AcceptPayout implements payd.PayoutProvider.
func (p *LivePayoutProvider) AcceptPayout(_ context.Context, _ payd.Tx, po *payd.Payout, dest payd.PayoutDestination) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// As a provider must: a reference seen before is the payout it has.
	if id, ok := p.byRef[po.Reference]; ok {
		return id, nil
	}
	p.accepted = append(p.accepted, dest)
	id := p.name + "-" + po.ID
	if p.byRef == nil {
		p.byRef = map[string]string{}
	}
	p.byRef[po.Reference] = id
	return id, nil
}

// PayoutStatus implements payd.PayoutProvider.
func (p *LivePayoutProvider) PayoutStatus(context.Context, payd.Tx, *payd.Payout) (payd.PayoutResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.result, nil
}
