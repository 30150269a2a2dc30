package sandbank

import (
	"strconv"

	"github.com/paydhq/payd"
)

// declineCodes is the sandbox reference of decline codes: each is also the
// cancellation reason the payment gets (docs/sandbox.md).
var declineCodes = map[string]bool{
	payd.ReasonGeneralDecline: true, payd.ReasonInsufficientFunds: true, payd.ReasonIssuerDeclined: true,
	payd.ReasonCardExpired: true, "do_not_honor": true, "stolen_card": true, "invalid_card": true,
}

// byDigits maps the last two digits of the amount in minor units.
var byDigits = map[int64]payd.SandboxOutcome{
	1: payd.SandboxDecline, 2: payd.SandboxAuthorize, 3: payd.SandboxThreeDSFail, 4: payd.SandboxProviderTimeout,
	5: payd.SandboxLateWebhook, 6: payd.SandboxDuplicateWebhook, 7: payd.SandboxExpire,
}

// DefaultLateDelay is the default delay of a late notification.
const DefaultLateDelay = 60

// plan is the sandbox's decision about a payment, made at the attempt.
type plan struct {
	Outcome     payd.SandboxOutcome
	DeclineCode string
	Delay       int
}

// planFor reads the outcome from the metadata overrides, or else the
// amount's last two digits; anything else succeeds. Misspelled keys and
// unknown values are ignored.
func planFor(p *payd.Payment) plan {
	pl := plan{Outcome: payd.SandboxSucceed}
	if o, ok := byDigits[p.Amount.Minor%100]; ok {
		pl.Outcome = o
	}
	if o := payd.SandboxOutcome(p.Metadata["sandbox_outcome"]); o.Valid() {
		pl.Outcome = o
	}
	pl.DeclineCode = payd.ReasonGeneralDecline
	if c, ok := p.Metadata["sandbox_decline_code"]; ok {
		if !declineCodes[c] {
			c = payd.ReasonGeneralDecline
		}
		pl.DeclineCode = c
		// A decline code alone asks for a decline.
		if p.Metadata["sandbox_outcome"] == "" {
			pl.Outcome = payd.SandboxDecline
		}
	}
	if pl.Outcome == payd.SandboxLateWebhook {
		pl.Delay = DefaultLateDelay
	}
	if v, ok := p.Metadata["sandbox_delay_seconds"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= 3600 {
			pl.Delay = n
		}
	}
	return pl
}
