package storetest

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

func testProviderRoute(t *testing.T, open func(t *testing.T) payd.Store) {
	get := func(t *testing.T, s payd.Store, region payd.Region, method string, c money.Currency) (r *payd.ProviderRoute, err error) {
		t.Helper()
		err = s.View(t.Context(), func(tx payd.Tx) error {
			r, err = tx.ProviderRouteGet(t.Context(), region, method, c)
			return err
		})
		return r, err
	}
	list := func(t *testing.T, s payd.Store) (out []*payd.ProviderRoute) {
		t.Helper()
		mustView(t, s, func(tx payd.Tx) (err error) { out, err = tx.ProviderRouteList(t.Context()); return err })
		return out
	}

	t.Run("PutGetReplace", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())

		_, err := get(t, s, payd.RegionRU, payd.MethodBankCard, money.RUB)
		wantErr(t, "ProviderRouteGet of an empty table", err, payd.ErrNoRows)
		if got := list(t, s); got == nil || len(got) != 0 {
			t.Errorf("ProviderRouteList of an empty table = %#v, want an empty, non-nil list", got)
		}

		// The order of the providers is the cascade order and must survive
		// the round trip, also when it is not alphabetical.
		r := &payd.ProviderRoute{Region: payd.RegionRU, Method: payd.MethodBankCard, Currency: money.RUB,
			Providers: []string{"zeta_bank", "alpha_bank", "mid_bank"}, UpdatedAt: now}
		mustTx(t, s, func(tx payd.Tx) error { return tx.ProviderRoutePut(ctx, r) })
		got, err := get(t, s, payd.RegionRU, payd.MethodBankCard, money.RUB)
		if err != nil {
			t.Fatalf("ProviderRouteGet: %v", err)
		}
		wantDiff(t, "ProviderRouteGet", r, got)

		// Put on an existing key replaces the row whole.
		next := &payd.ProviderRoute{Region: payd.RegionRU, Method: payd.MethodBankCard, Currency: money.RUB,
			Providers: []string{"alpha_bank"}, UpdatedAt: now.Add(time.Minute)}
		mustTx(t, s, func(tx payd.Tx) error { return tx.ProviderRoutePut(ctx, next) })
		got, err = get(t, s, payd.RegionRU, payd.MethodBankCard, money.RUB)
		if err != nil {
			t.Fatalf("ProviderRouteGet after replace: %v", err)
		}
		wantDiff(t, "ProviderRouteGet after replace", next, got)
		wantDiff(t, "ProviderRouteList after replace", []*payd.ProviderRoute{next}, list(t, s))
	})

	t.Run("KeyedByRegionMethodCurrency", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		route := func(region payd.Region, method string, c money.Currency, providers ...string) *payd.ProviderRoute {
			return &payd.ProviderRoute{Region: region, Method: method, Currency: c, Providers: providers, UpdatedAt: now}
		}
		// Inserted out of order; each differs from another in one part of
		// the key only.
		all := []*payd.ProviderRoute{
			route(payd.RegionRU, payd.MethodSBP, money.RUB, "c"),
			route(payd.RegionKZ, payd.MethodBankCard, money.KZT, "a"),
			route(payd.RegionRU, payd.MethodBankCard, money.USD, "b", "a"),
			route(payd.RegionRU, payd.MethodBankCard, money.RUB, "a", "b"),
			route(payd.RegionKZ, payd.MethodBankCard, money.USD, "d"),
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, r := range all {
				if err := tx.ProviderRoutePut(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
		want := []*payd.ProviderRoute{all[1], all[4], all[3], all[2], all[0]}
		wantDiff(t, "ProviderRouteList", want, list(t, s))

		for _, r := range all {
			got, err := get(t, s, r.Region, r.Method, r.Currency)
			if err != nil {
				t.Fatalf("ProviderRouteGet %s/%s/%s: %v", r.Region, r.Method, r.Currency, err)
			}
			wantDiff(t, "ProviderRouteGet "+string(r.Region)+"/"+r.Method+"/"+string(r.Currency), r, got)
		}
		_, err := get(t, s, payd.RegionKZ, payd.MethodBankCard, money.EUR)
		wantErr(t, "ProviderRouteGet of a currency without a row", err, payd.ErrNoRows)
		_, err = get(t, s, payd.RegionKZ, payd.MethodSBP, money.RUB)
		wantErr(t, "ProviderRouteGet of a region without the row", err, payd.ErrNoRows)
	})

	t.Run("Delete", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		keep := &payd.ProviderRoute{Region: payd.RegionKZ, Method: payd.MethodBankCard, Currency: money.KZT,
			Providers: []string{"a"}, UpdatedAt: now}
		gone := &payd.ProviderRoute{Region: payd.RegionRU, Method: payd.MethodBankCard, Currency: money.RUB,
			Providers: []string{"a"}, UpdatedAt: now}
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.ProviderRoutePut(ctx, keep); err != nil {
				return err
			}
			return tx.ProviderRoutePut(ctx, gone)
		})
		mustTx(t, s, func(tx payd.Tx) error {
			return tx.ProviderRouteDelete(ctx, payd.RegionRU, payd.MethodBankCard, money.RUB)
		})
		_, err := get(t, s, payd.RegionRU, payd.MethodBankCard, money.RUB)
		wantErr(t, "ProviderRouteGet after delete", err, payd.ErrNoRows)
		wantDiff(t, "ProviderRouteList after delete", []*payd.ProviderRoute{keep}, list(t, s))

		err = s.Tx(ctx, func(tx payd.Tx) error {
			return tx.ProviderRouteDelete(ctx, payd.RegionRU, payd.MethodBankCard, money.RUB)
		})
		wantErr(t, "ProviderRouteDelete of a missing row", err, payd.ErrNoRows)
	})
}
