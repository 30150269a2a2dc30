package payd

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd/money"
)

// PayoutProvider is a bank or processor that sends payouts. AcceptPayout
// is called in the creation transaction with the full destination, which
// payd itself never stores: the provider takes it over (a remote adapter
// hands it to its bank; the sandbox keeps only the outcome it chose, in
// the payout's ProviderPayoutID). It may answer ErrProviderTimeout when it
// cannot tell whether the payout was taken: the payout goes on and its
// status is queried later. An *Error it returns (a destination the
// provider refuses) is the request's answer. The call happens inside a
// transaction that may still roll back, so a provider must deduplicate on
// the payout's Reference, which stays the same when the merchant retries
// the request, and answer a repeated one with the payout it already has.
type PayoutProvider interface {
	Name() string
	AcceptPayout(ctx context.Context, tx Tx, po *Payout, dest PayoutDestination) (providerPayoutID string, err error)
	// PayoutStatus reports what became of a payout, by the provider's id
	// or, when that was never learned, by the payout's own id.
	// ErrProviderTimeout means no answer this time.
	PayoutStatus(ctx context.Context, tx Tx, po *Payout) (PayoutResult, error)
}

// DestinationChecker is a payout provider with rules of its own about
// destinations (the sandbox takes its test card tokens only). The service
// asks it with the other field checks, before any money rule, so that bad
// input is a 400 whatever the balance.
type DestinationChecker interface {
	CheckDestination(kind DestinationType, dest PayoutDestination) error
}

// PayoutResult is a provider's word on a payout. While Status is
// processing, CheckAt says when to ask again (zero: the service's backoff).
type PayoutResult struct {
	Status       PayoutStatus
	Reason       string
	ProviderCode string
	CheckAt      time.Time
}

// Payout routes in the operator's routing table: the method column names
// the destination kind of live payouts.
const payoutRoutePrefix = "payout_"

// payoutRouteMethods are the method names of live payout routes.
var payoutRouteMethods = []string{payoutRoutePrefix + string(DestinationCard), payoutRoutePrefix + string(DestinationSBP),
	payoutRoutePrefix + string(DestinationBankAccount)}

// isPayoutRoute reports whether a route's method is a payout kind.
func isPayoutRoute(method string) bool { return strings.HasPrefix(method, payoutRoutePrefix) }

// checkPayoutRouteKey accepts a payout kind the region offers and any
// currency of the contract.
func checkPayoutRouteKey(region Region, method string, currency money.Currency) error {
	switch {
	case !region.Valid():
		return Invalid("region", "region must be ru or kz")
	case !slices.Contains(payoutRouteMethods, method):
		return Invalid("method", "payout routes are %s", strings.Join(payoutRouteMethods, ", "))
	case method == payoutRoutePrefix+string(DestinationSBP) && region != RegionRU:
		return Invalid("method", "sbp payouts are offered in ru only")
	case !currency.Valid():
		return Invalid("currency", "currency must be one of RUB, KZT, USD, EUR")
	}
	return nil
}

// checkPayoutRouteProviders accepts only live payout adapters of the build.
func (s *Service) checkPayoutRouteProviders(names []string) error {
	for i, name := range names {
		if !s.livePayout[name] {
			return Invalid("providers."+strconv.Itoa(i), "no live payout provider %q in this build", name)
		}
	}
	return nil
}

// payoutProviderFor chooses the provider of a payout: the sandbox for a
// test payout, without a query; for a live one the first live payout
// adapter of the operator's route for the region, kind and currency.
// None answers provider_unavailable: there is no fake success in live.
func (s *Service) payoutProviderFor(ctx context.Context, tx Tx, test bool, region Region, kind DestinationType, c money.Currency) (PayoutProvider, error) {
	if test {
		if pr := s.payoutProviders[s.testPayoutProvider]; pr != nil {
			return pr, nil
		}
		return nil, errNoPayoutProvider()
	}
	r, err := tx.ProviderRouteGet(ctx, region, payoutRoutePrefix+string(kind), c)
	if errors.Is(err, ErrNoRows) {
		return nil, errNoPayoutProvider()
	}
	if err != nil {
		return nil, err
	}
	for _, name := range r.Providers {
		if s.livePayout[name] {
			return s.payoutProviders[name], nil
		}
	}
	return nil, errNoPayoutProvider()
}

func errNoPayoutProvider() *Error {
	return &Error{Code: CodeProviderUnavailable, Cause: CauseProvider, RetryAfter: 60 * time.Second,
		Message: "no payout provider can take this payout now; retry later with the same Idempotency-Key"}
}
