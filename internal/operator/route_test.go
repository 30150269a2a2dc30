package operator_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestOperatorProviderRoutes(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{LiveProviders: []payd.Provider{
			paydtest.NewLiveProvider("acme_bank"), paydtest.NewLiveProvider("beta_bank")}})
		diff := func(what string, want, got any) {
			t.Helper()
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", what, d)
			}
		}

		var providers struct{ Items []payd.ProviderInfo }
		env.AdminDo("GET", "/admin/v1/providers", nil).Expect(t, 200).Decode(t, &providers)
		diff("providers", []payd.ProviderInfo{{Name: "sandbox"}, {Name: "sandbox_backup"},
			{Name: "acme_bank", Live: true}, {Name: "beta_bank", Live: true}, {Name: "sandbox_payouts", Payouts: true}}, providers.Items)

		list := func() []string {
			t.Helper()
			var page struct{ Items []payd.ProviderRoute }
			env.AdminDo("GET", "/admin/v1/provider-routes", nil).Expect(t, 200).Decode(t, &page)
			out := []string{}
			for _, r := range page.Items {
				out = append(out, string(r.Region)+" "+r.Method+" "+string(r.Currency)+" "+fmt.Sprint(r.Providers))
			}
			return out
		}
		diff("empty table", []string{}, list())

		route := func(region, method, currency string, providers any) map[string]any {
			body := map[string]any{"region": region, "method": method, "currency": currency}
			if providers != nil {
				body["providers"] = providers
			}
			return body
		}
		nine := []string{"acme_bank", "beta_bank", "c", "d", "e", "f", "g", "h", "i"}
		bad := []struct {
			name  string
			body  map[string]any
			param string
		}{
			{"UnknownRegion", route("us", "bank_card", "USD", []string{"acme_bank"}), "region"},
			{"NoRegion", route("", "bank_card", "RUB", []string{"acme_bank"}), "region"},
			{"UnknownMethod", route("ru", "cash", "RUB", []string{"acme_bank"}), "method"},
			{"MethodOfAnotherRegion", route("kz", "sbp", "KZT", []string{"acme_bank"}), "method"},
			{"MethodNotOffered", route("ru", "installments", "RUB", []string{"acme_bank"}), "method"},
			{"UnknownCurrency", route("ru", "bank_card", "GBP", []string{"acme_bank"}), "currency"},
			{"CurrencyOfAnotherRegion", route("ru", "bank_card", "KZT", []string{"acme_bank"}), "currency"},
			{"CurrencyNotOfMethod", route("ru", "sbp", "USD", []string{"acme_bank"}), "currency"},
			{"NoProviders", route("ru", "bank_card", "RUB", nil), "providers"},
			{"EmptyProviders", route("ru", "bank_card", "RUB", []string{}), "providers"},
			{"ProvidersNotAList", route("ru", "bank_card", "RUB", "acme_bank"), "providers"},
			{"TooManyProviders", route("ru", "bank_card", "RUB", nine), "providers"},
			{"UnknownProvider", route("ru", "bank_card", "RUB", []string{"nope_bank"}), "providers.0"},
			{"SandboxForLive", route("ru", "bank_card", "RUB", []string{"acme_bank", "sandbox"}), "providers.1"},
			{"SandboxBackupForLive", route("kz", "bank_card", "KZT", []string{"sandbox_backup"}), "providers.0"},
			{"ProviderTwice", route("ru", "bank_card", "RUB", []string{"acme_bank", "beta_bank", "acme_bank"}), "providers.2"},
		}
		for _, tt := range bad {
			t.Run(tt.name, func(t *testing.T) {
				env.AdminDo("PUT", "/admin/v1/provider-routes", tt.body).ExpectError(t, 400, payd.CodeInvalidRequest, tt.param)
			})
		}
		diff("table after refused writes", []string{}, list())

		var got payd.ProviderRoute
		env.AdminDo("PUT", "/admin/v1/provider-routes", route("ru", "bank_card", "RUB", []string{"beta_bank", "acme_bank"})).
			Expect(t, 200).Decode(t, &got)
		diff("PUT answer", []string{"beta_bank", "acme_bank"}, got.Providers)
		if got.Region != payd.RegionRU || got.Method != payd.MethodBankCard || got.Currency != "RUB" || got.UpdatedAt.IsZero() {
			t.Errorf("PUT answer = %+v", got)
		}
		env.AdminDo("PUT", "/admin/v1/provider-routes", route("kz", "bank_card", "USD", []string{"acme_bank"})).Expect(t, 200)
		diff("table", []string{"kz bank_card USD [acme_bank]", "ru bank_card RUB [beta_bank acme_bank]"}, list())

		// A second PUT of the same key replaces the cascade.
		env.AdminDo("PUT", "/admin/v1/provider-routes", route("ru", "bank_card", "RUB", []string{"acme_bank"})).Expect(t, 200)
		diff("table after replace", []string{"kz bank_card USD [acme_bank]", "ru bank_card RUB [acme_bank]"}, list())

		env.AdminDo("DELETE", "/admin/v1/provider-routes/xx/bank_card/RUB", nil).ExpectError(t, 400, payd.CodeInvalidRequest, "region")
		env.AdminDo("DELETE", "/admin/v1/provider-routes/ru/bank_card/GBP", nil).ExpectError(t, 400, payd.CodeInvalidRequest, "currency")
		env.AdminDo("DELETE", "/admin/v1/provider-routes/ru/sbp/RUB", nil).ExpectError(t, 404, payd.CodeNotFound, "")
		env.AdminDo("DELETE", "/admin/v1/provider-routes/ru/bank_card/RUB", nil).Expect(t, 200)
		env.AdminDo("DELETE", "/admin/v1/provider-routes/ru/bank_card/RUB", nil).ExpectError(t, 404, payd.CodeNotFound, "")
		diff("table after delete", []string{"kz bank_card USD [acme_bank]"}, list())

		env.Do("GET", env.Admin.URL, "/admin/v1/provider-routes", nil, nil).ExpectError(t, 401, payd.CodeInvalidCredentials, "")
	})
}
