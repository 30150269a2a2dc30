// Package sandpayout is the sandbox payout provider: it sends test payouts
// nowhere and decides them on the service clock, by the last two digits of
// the amount in minor units and by the documented test card tokens
// (docs/sandbox.md, Payouts). It keeps no state of its own: the outcome it
// chose at acceptance travels in the payout's provider id.
package sandpayout

import (
	"context"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// Name is the provider's name in payouts and logs.
const Name = "sandbox_payouts"

// Timings of the sandbox on the service clock, from the payout's creation.
const (
	// Settle is when an ordinary payout (and a declined one) is decided.
	Settle = 10 * time.Second
	// Delayed is when a payout of amount digits 05 succeeds.
	Delayed = time.Hour
	// Silent is how long a payout of amount digits 04 goes unanswered: the
	// acceptance and every status query before it time out.
	Silent = time.Minute
)

// Outcomes the sandbox plans for a payout.
const (
	outcomeSucceed = "succeed"
	outcomeDecline = "decline"
	outcomeExpired = "card_expired"
	outcomeDelay   = "delay"
	outcomeTimeout = "timeout"
)

// testCardTokens are the card tokens the sandbox knows, with the outcome
// each brings (the amount's digits still apply to the first).
var testCardTokens = map[string]string{
	"tok_sandbox_4242": outcomeSucceed,
	"tok_sandbox_0002": outcomeDecline,
	"tok_sandbox_0069": outcomeExpired,
}

// Provider is the sandbox payout provider.
type Provider struct {
	clock payd.Clock
}

// New returns the sandbox payout provider reading clock.
func New(clock payd.Clock) *Provider { return &Provider{clock: clock} }

// Name implements payd.PayoutProvider.
func (*Provider) Name() string { return Name }

// plan chooses the outcome: a card token's own outcome first, then the
// amount's last two digits (01 decline, 04 provider timeout, 05 delayed
// completion), else success.
func plan(po *payd.Payout, dest payd.PayoutDestination) string {
	if o := testCardTokens[dest.CardToken]; o != "" && o != outcomeSucceed {
		return o
	}
	switch po.Amount.Minor % 100 {
	case 1:
		return outcomeDecline
	case 4:
		return outcomeTimeout
	case 5:
		return outcomeDelay
	}
	return outcomeSucceed
}

// CheckDestination refuses card tokens other than the test ones: the
// sandbox cannot pay a real card.
func (p *Provider) CheckDestination(kind payd.DestinationType, dest payd.PayoutDestination) error {
	if kind == payd.DestinationCard && testCardTokens[dest.CardToken] == "" {
		return payd.Invalid("destination.card_token", "test payouts take the sandbox card tokens only: tok_sandbox_4242, tok_sandbox_0002, tok_sandbox_0069")
	}
	return nil
}

// AcceptPayout answers a timeout for digits 04; otherwise it names the
// payout with its planned outcome.
func (p *Provider) AcceptPayout(_ context.Context, _ payd.Tx, po *payd.Payout, dest payd.PayoutDestination) (string, error) {
	if err := p.CheckDestination(po.DestinationType, dest); err != nil {
		return "", err
	}
	o := plan(po, dest)
	if o == outcomeTimeout {
		return "", payd.ErrProviderTimeout
	}
	return "sbxpo-" + o + "-" + strings.TrimPrefix(po.ID, payd.PrefixPayout), nil
}

// PayoutStatus decides the payout once its time has come. A payout whose
// acceptance timed out has no sandbox id and is found by its own id: it
// was taken, and succeeds once the silent minute is over.
func (p *Provider) PayoutStatus(_ context.Context, _ payd.Tx, po *payd.Payout) (payd.PayoutResult, error) {
	o, wait := outcomeTimeout, Silent
	if po.ProviderPayoutID != "" {
		parts := strings.SplitN(po.ProviderPayoutID, "-", 3)
		if len(parts) != 3 {
			return payd.PayoutResult{}, payd.ErrProviderTimeout
		}
		o, wait = parts[1], Settle
		if o == outcomeDelay {
			wait = Delayed
		}
	}
	due := po.CreatedAt.Add(wait)
	if p.clock.Now().Before(due) {
		if o == outcomeTimeout {
			return payd.PayoutResult{}, payd.ErrProviderTimeout
		}
		return payd.PayoutResult{Status: payd.PayoutProcessing, CheckAt: due}, nil
	}
	switch o {
	case outcomeDecline:
		return payd.PayoutResult{Status: payd.PayoutCanceled, Reason: payd.ReasonIssuerDeclined, ProviderCode: "sandbox_01"}, nil
	case outcomeExpired:
		return payd.PayoutResult{Status: payd.PayoutCanceled, Reason: payd.ReasonCardExpired, ProviderCode: "sandbox_card_expired"}, nil
	}
	return payd.PayoutResult{Status: payd.PayoutSucceeded}, nil
}
