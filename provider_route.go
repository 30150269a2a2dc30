package payd

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd/money"
)

// ProviderRoute is an operator's routing row for live payments: the
// providers that take payments of a region, method and currency, in cascade
// order. Test payments never read it: they always go to the sandbox banks.
type ProviderRoute struct {
	Region    Region         `json:"region"`
	Method    string         `json:"method"`
	Currency  money.Currency `json:"currency"`
	Providers []string       `json:"providers"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// ProviderRouteSet is `PUT /admin/v1/provider-routes`: the row of region,
// method and currency is created or replaced.
type ProviderRouteSet struct {
	Region    Region         `json:"region"`
	Method    string         `json:"method"`
	Currency  money.Currency `json:"currency"`
	Providers []string       `json:"providers"`
}

// MaxRouteProviders bounds a cascade: every candidate may cost the payer a
// provider timeout before the next is asked.
const MaxRouteProviders = 8

// ProviderInfo names a registered provider and whether live payments (or
// live payouts, for a payout provider) may be routed to it.
type ProviderInfo struct {
	Name    string `json:"name"`
	Live    bool   `json:"live"`
	Payouts bool   `json:"payouts,omitempty"`
}

// Providers lists the registered providers: the sandbox banks (never live)
// and the live adapters of the build, by name, then the payout providers:
// the sandbox's and the live payout adapters.
func (s *Service) Providers() []ProviderInfo {
	out := []ProviderInfo{}
	for _, name := range s.providerNames {
		out = append(out, ProviderInfo{Name: name, Live: s.live[name]})
	}
	for _, name := range s.payoutNames {
		out = append(out, ProviderInfo{Name: name, Live: s.livePayout[name], Payouts: true})
	}
	return out
}

// ProviderRoutes lists the live routing table by region, method and
// currency.
func (s *Service) ProviderRoutes(ctx context.Context) ([]*ProviderRoute, error) {
	return read(ctx, s, "list provider routes", func(tx Tx) ([]*ProviderRoute, error) { return tx.ProviderRouteList(ctx) })
}

// SetProviderRoute creates or replaces the live route of a region, method
// and currency. Only live providers registered in this build may be named:
// the sandbox banks never take a live payment, and a name the build does
// not know would only fail later, at a payer's expense.
func (s *Service) SetProviderRoute(ctx context.Context, in ProviderRouteSet) (*ProviderRoute, error) {
	if err := checkRouteKey(in.Region, in.Method, in.Currency); err != nil {
		return nil, err
	}
	if len(in.Providers) == 0 || len(in.Providers) > MaxRouteProviders {
		return nil, Invalid("providers", "providers must name 1..%d live providers in cascade order", MaxRouteProviders)
	}
	seen := map[string]bool{}
	for i, name := range in.Providers {
		param := "providers." + strconv.Itoa(i)
		switch {
		case seen[name]:
			return nil, Invalid(param, "provider %q is named twice", name)
		case isPayoutRoute(in.Method):
			if err := s.checkPayoutRouteProviders([]string{name}); err != nil {
				return nil, Invalid(param, "%s", err.(*Error).Message)
			}
		case s.providers[name] != nil && !s.live[name]:
			return nil, Invalid(param, "provider %q serves test payments only and cannot take live ones", name)
		case !s.live[name]:
			return nil, Invalid(param, "no live provider %q in this build", name)
		}
		seen[name] = true
	}
	r := &ProviderRoute{Region: in.Region, Method: in.Method, Currency: in.Currency,
		Providers: append([]string(nil), in.Providers...), UpdatedAt: s.clock.Now()}
	err := s.store.Tx(ctx, func(tx Tx) error {
		before, err := tx.ProviderRouteGet(ctx, r.Region, r.Method, r.Currency)
		if err != nil && !errors.Is(err, ErrNoRows) {
			return err
		}
		NoteOperatorChange(ctx, before, r)
		return tx.ProviderRoutePut(ctx, r)
	})
	return r, err
}

// DeleteProviderRoute removes the live route of a region, method and
// currency; live payments of that kind answer provider_unavailable from
// then on.
func (s *Service) DeleteProviderRoute(ctx context.Context, region Region, method string, currency money.Currency) error {
	if err := checkRouteKey(region, method, currency); err != nil {
		return err
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		before, err := tx.ProviderRouteGet(ctx, region, method, currency)
		if err != nil {
			return notFoundAs(err, "provider route")
		}
		NoteOperatorChange(ctx, before, nil)
		return notFoundAs(tx.ProviderRouteDelete(ctx, region, method, currency), "provider route")
	})
}

// checkRouteKey accepts a method offered in the region and a currency of
// that method there: a route for anything else could never be used.
func checkRouteKey(region Region, method string, currency money.Currency) error {
	if isPayoutRoute(method) {
		return checkPayoutRouteKey(region, method, currency)
	}
	if !region.Valid() {
		return Invalid("region", "region must be ru or kz")
	}
	for _, m := range regionMethods[region] {
		if m.Type != method || !m.Offered {
			continue
		}
		for _, c := range m.Currencies {
			if c == currency {
				return nil
			}
		}
		return Invalid("currency", "%s in %s takes %s", method, region, currencyList(m.Currencies))
	}
	return Invalid("method", "method %q is not offered in %s", method, region)
}

func currencyList(cs []money.Currency) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// routeOf returns the cascade of a payment of the given kind: the sandbox
// banks for a test payment, without a query; for a live one the operator's
// row, read in tx, keeping only live providers registered in this build. An
// empty answer means no provider can take the payment.
func (s *Service) routeOf(ctx context.Context, tx Tx, test bool, region Region, method string, currency money.Currency) ([]string, error) {
	if test {
		return s.testRoute(region, method, currency), nil
	}
	r, err := tx.ProviderRouteGet(ctx, region, method, currency)
	if errors.Is(err, ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range r.Providers {
		if s.live[name] {
			out = append(out, name)
		}
	}
	return out, nil
}

// firstRoute returns the cascade of the first of methods that has one, or
// provider_unavailable when none has.
func (s *Service) firstRoute(ctx context.Context, tx Tx, test bool, region Region, methods []string, currency money.Currency) ([]string, error) {
	for _, m := range methods {
		route, err := s.routeOf(ctx, tx, test, region, m, currency)
		if err != nil || len(route) > 0 {
			return route, err
		}
	}
	return nil, errNoProvider()
}

// errNoProvider is the answer when no provider can take a payment: there is
// no fake success in live.
func errNoProvider() *Error {
	return &Error{Code: CodeProviderUnavailable, Cause: CauseProvider, RetryAfter: 60 * time.Second,
		Message: "no payment provider can take this payment now; retry later"}
}
