package main

import (
	"flag"
	"net/http"
	"net/url"
	"strings"
)

// Live provider routing: which providers take live payments of a region,
// method and currency, in cascade order.

// routeKeyFlags registers the flags that name a route.
func routeKeyFlags(fs *flag.FlagSet) (region, method, currency *string) {
	region = fs.String("region", "", "ru or kz")
	method = fs.String("method", "", "payment method, e.g. bank_card, sbp or kz_qr; or a payout kind: payout_card, payout_sbp, payout_bank_account")
	currency = fs.String("currency", "", "RUB, KZT, USD or EUR")
	return region, method, currency
}

func (a *adminCLI) providersList(args []string) error {
	if _, err := a.parse(a.flags("providers list"), args); err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/providers", nil, kindProviderList)
}

func (a *adminCLI) routesList(args []string) error {
	if _, err := a.parse(a.flags("provider-routes list"), args); err != nil {
		return err
	}
	return a.show(http.MethodGet, "/admin/v1/provider-routes", nil, kindRouteList)
}

func (a *adminCLI) routesSet(args []string) error {
	fs := a.flags("provider-routes set")
	region, method, currency := routeKeyFlags(fs)
	providers := fs.String("providers", "", "comma-separated provider names in cascade order")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "region", "method", "currency", "providers"); err != nil {
		return err
	}
	names := []string{}
	for _, n := range strings.Split(*providers, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	body := map[string]any{"region": *region, "method": *method, "currency": strings.ToUpper(*currency), "providers": names}
	return a.show(http.MethodPut, "/admin/v1/provider-routes", body, kindRoute)
}

func (a *adminCLI) routesDelete(args []string) error {
	fs := a.flags("provider-routes delete")
	region, method, currency := routeKeyFlags(fs)
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "region", "method", "currency"); err != nil {
		return err
	}
	path := "/admin/v1/provider-routes/" + url.PathEscape(*region) + "/" + url.PathEscape(*method) + "/" +
		url.PathEscape(strings.ToUpper(*currency))
	return a.show(http.MethodDelete, path, nil, kindRoute)
}

func init() {
	adminCommands["providers"] = map[string]func(*adminCLI, []string) error{"list": (*adminCLI).providersList}
	adminCommands["provider-routes"] = map[string]func(*adminCLI, []string) error{
		"list": (*adminCLI).routesList, "set": (*adminCLI).routesSet, "delete": (*adminCLI).routesDelete}
	tables[kindProviderList] = table{"providers", []column{field("name"), yesNo("LIVE", "live")}}
	tables[kindRouteList] = table{"provider routes", []column{field("region"), field("method"), field("currency"),
		field("providers"), named("UPDATED", "updated_at")}}
	adminSections = append(adminSections,
		struct{ name, text string }{"providers", `Providers:
  providers list                        registered providers; LIVE yes can take live payments
`},
		struct{ name, text string }{"provider-routes", `Live provider routing:
  provider-routes list
  provider-routes set --region ru|kz --method bank_card|sbp|kz_qr --currency CUR --providers NAME[,NAME...]
  provider-routes delete --region ru|kz --method bank_card|sbp|kz_qr --currency CUR

  Live payments of a region, method and currency go to the providers of
  their route, in the order given: a provider that times out passes the
  payment to the next. Without a route a live payment answers 503
  provider_unavailable. Only live providers of the build can be named (see
  providers list); the sandbox banks serve test payments only.
`})
}
