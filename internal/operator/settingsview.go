package operator

import (
	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// settingsJSON is a shop's settings as operators read and write them: the
// shop's answers show them, and a new shop's `settings` and a PATCH of a
// shop are read into them. The domain keeps the settings as a document of
// their own (payd.ShopSettings, stored by its json tags), so these names
// are the operator API's, apart from the stored ones. Zero values mean the
// default and are left out.
type settingsJSON struct {
	RequestsPerMinute            int          `json:"requests_per_minute,omitempty"`
	PaymentsPerMinute            int          `json:"payments_per_minute,omitempty"`
	IPAllowlist                  []string     `json:"ip_allowlist,omitempty"`
	DisplayName                  string       `json:"display_name,omitempty"`
	StatementName                string       `json:"statement_name,omitempty"`
	PaymentLifetimeSeconds       int64        `json:"payment_lifetime_seconds,omitempty"`
	MethodsDisabled              []string     `json:"methods_disabled,omitempty"`
	AuthorizeRequestWebhook      bool         `json:"authorize_request_webhook,omitempty"`
	AuthorizeRequestDefaultAllow bool         `json:"authorize_request_default_allow,omitempty"`
	Tariffs                      []tariffJSON `json:"tariffs,omitempty"`
	// Limits is an object, so it is written even when empty ({}).
	Limits                limitsJSON                              `json:"limits"`
	HoldDays              map[string]int                          `json:"hold_days,omitempty"`
	Ranges                map[string]map[money.Currency]rangeJSON `json:"ranges,omitempty"`
	Reserve               []reserveJSON                           `json:"reserve,omitempty"`
	RefundBeyondAvailable bool                                    `json:"refund_beyond_available,omitempty"`
	DisputeFees           []disputeFeeJSON                        `json:"dispute_fees,omitempty"`
	PayoutFees            []payoutFeeJSON                         `json:"payout_fees,omitempty"`
	PayoutRanges          map[money.Currency]rangeJSON            `json:"payout_ranges,omitempty"`
	EmbedOrigins          []string                                `json:"embed_origins,omitempty"`
	TimeZone              string                                  `json:"time_zone,omitempty"`
}

type tariffJSON struct {
	Method      string         `json:"method"`
	Currency    money.Currency `json:"currency"`
	PercentBps  int64          `json:"percent_bps"`
	Fixed       int64          `json:"fixed,omitempty"`
	Min         int64          `json:"min,omitempty"`
	HoldDays    int            `json:"hold_days,omitempty"`
	NoFeeReturn bool           `json:"no_fee_return,omitempty"`
}

type limitsJSON struct {
	DailyTurnover     map[money.Currency]int64 `json:"daily_turnover,omitempty"`
	MonthlyTurnover   map[money.Currency]int64 `json:"monthly_turnover,omitempty"`
	PaymentsPerMinute int                      `json:"payments_per_minute,omitempty"`
	AverageTicket     map[money.Currency]int64 `json:"average_ticket,omitempty"`
}

type rangeJSON struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

type reserveJSON struct {
	Currency   money.Currency `json:"currency"`
	PercentBps int            `json:"percent_bps"`
	Days       int            `json:"days"`
}

type disputeFeeJSON struct {
	Currency   money.Currency `json:"currency"`
	BankFine   int64          `json:"bank_fine"`
	ServiceFee int64          `json:"service_fee"`
}

type payoutFeeJSON struct {
	Currency   money.Currency `json:"currency"`
	PercentBps int64          `json:"percent_bps"`
	Fixed      int64          `json:"fixed,omitempty"`
	Min        int64          `json:"min,omitempty"`
	Max        int64          `json:"max,omitempty"`
}

func settingsView(s payd.ShopSettings) settingsJSON {
	return settingsJSON{
		RequestsPerMinute: s.RequestsPerMinute, PaymentsPerMinute: s.PaymentsPerMinute, IPAllowlist: s.IPAllowlist,
		DisplayName: s.DisplayName, StatementName: s.StatementName, PaymentLifetimeSeconds: s.PaymentLifetimeSeconds,
		MethodsDisabled: s.MethodsDisabled, AuthorizeRequestWebhook: s.AuthorizeRequestWebhook,
		AuthorizeRequestDefaultAllow: s.AuthorizeRequestDefaultAllow,
		Tariffs: views(s.Tariffs, func(t payd.Tariff) tariffJSON {
			return tariffJSON{Method: t.Method, Currency: t.Currency, PercentBps: t.PercentBps, Fixed: t.Fixed, Min: t.Min,
				HoldDays: t.HoldDays, NoFeeReturn: t.NoFeeReturn}
		}),
		Limits: limitsJSON{DailyTurnover: s.Limits.DailyTurnover, MonthlyTurnover: s.Limits.MonthlyTurnover,
			PaymentsPerMinute: s.Limits.PaymentsPerMinute, AverageTicket: s.Limits.AverageTicket},
		HoldDays: s.HoldDays,
		Ranges: mapOf(s.Ranges, func(byCurrency map[money.Currency]payd.Range) map[money.Currency]rangeJSON {
			return mapOf(byCurrency, rangeView)
		}),
		Reserve: views(s.Reserve, func(r payd.ReserveRule) reserveJSON {
			return reserveJSON{Currency: r.Currency, PercentBps: r.PercentBps, Days: r.Days}
		}),
		RefundBeyondAvailable: s.RefundBeyondAvailable,
		DisputeFees: views(s.DisputeFees, func(f payd.DisputeFee) disputeFeeJSON {
			return disputeFeeJSON{Currency: f.Currency, BankFine: f.BankFine, ServiceFee: f.ServiceFee}
		}),
		PayoutFees: views(s.PayoutFees, func(f payd.PayoutFee) payoutFeeJSON {
			return payoutFeeJSON{Currency: f.Currency, PercentBps: f.PercentBps, Fixed: f.Fixed, Min: f.Min, Max: f.Max}
		}),
		PayoutRanges: mapOf(s.PayoutRanges, rangeView),
		EmbedOrigins: s.EmbedOrigins,
		TimeZone:     s.TimeZone,
	}
}

func rangeView(r payd.Range) rangeJSON { return rangeJSON{Min: r.Min, Max: r.Max} }

// settings is what the operator wrote, as the domain keeps it.
func (s settingsJSON) settings() payd.ShopSettings {
	return payd.ShopSettings{
		RequestsPerMinute: s.RequestsPerMinute, PaymentsPerMinute: s.PaymentsPerMinute, IPAllowlist: s.IPAllowlist,
		DisplayName: s.DisplayName, StatementName: s.StatementName, PaymentLifetimeSeconds: s.PaymentLifetimeSeconds,
		MethodsDisabled: s.MethodsDisabled, AuthorizeRequestWebhook: s.AuthorizeRequestWebhook,
		AuthorizeRequestDefaultAllow: s.AuthorizeRequestDefaultAllow,
		Tariffs: views(s.Tariffs, func(t tariffJSON) payd.Tariff {
			return payd.Tariff{Method: t.Method, Currency: t.Currency, PercentBps: t.PercentBps, Fixed: t.Fixed, Min: t.Min,
				HoldDays: t.HoldDays, NoFeeReturn: t.NoFeeReturn}
		}),
		Limits: payd.PortfolioLimits{DailyTurnover: s.Limits.DailyTurnover, MonthlyTurnover: s.Limits.MonthlyTurnover,
			PaymentsPerMinute: s.Limits.PaymentsPerMinute, AverageTicket: s.Limits.AverageTicket},
		HoldDays: s.HoldDays,
		Ranges: mapOf(s.Ranges, func(byCurrency map[money.Currency]rangeJSON) map[money.Currency]payd.Range {
			return mapOf(byCurrency, rangeIn)
		}),
		Reserve: views(s.Reserve, func(r reserveJSON) payd.ReserveRule {
			return payd.ReserveRule{Currency: r.Currency, PercentBps: r.PercentBps, Days: r.Days}
		}),
		RefundBeyondAvailable: s.RefundBeyondAvailable,
		DisputeFees: views(s.DisputeFees, func(f disputeFeeJSON) payd.DisputeFee {
			return payd.DisputeFee{Currency: f.Currency, BankFine: f.BankFine, ServiceFee: f.ServiceFee}
		}),
		PayoutFees: views(s.PayoutFees, func(f payoutFeeJSON) payd.PayoutFee {
			return payd.PayoutFee{Currency: f.Currency, PercentBps: f.PercentBps, Fixed: f.Fixed, Min: f.Min, Max: f.Max}
		}),
		PayoutRanges: mapOf(s.PayoutRanges, rangeIn),
		EmbedOrigins: s.EmbedOrigins,
		TimeZone:     s.TimeZone,
	}
}

func rangeIn(r rangeJSON) payd.Range { return payd.Range{Min: r.Min, Max: r.Max} }
