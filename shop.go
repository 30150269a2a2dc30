package payd

import (
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/paydhq/payd/money"
)

// Region is a data contour with its own methods and calendar.
type Region string

// The two regions of the contract.
const (
	RegionRU Region = "ru"
	RegionKZ Region = "kz"
)

// RegionAll returns both regions.
func RegionAll() []Region { return []Region{RegionRU, RegionKZ} }

// Valid reports whether r is a known region.
func (r Region) Valid() bool { return slices.Contains(RegionAll(), r) }

// Merchant is the legal entity that owns shops; balances, settlements and
// payout freezes are kept at its level.
type Merchant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	LegalName string    `json:"legal_name,omitempty"`
	TaxID     string    `json:"tax_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// SettlementDelayDays is the merchant's settlement delay (Shop.settlement).
	SettlementDelayDays int `json:"settlement_delay_days"`
	// AutoSettle takes registers from draft to paid without operators.
	AutoSettle bool `json:"auto_settle"`
	// Chargeback is the merchant's chargeback-ratio freeze rule; zero
	// fields mean the defaults (DefaultChargebackRule).
	Chargeback ChargebackRule `json:"chargeback"`
	// RequireSecondFactor makes every dashboard user of the merchant sign
	// in with a second factor, enrolling at the next sign-in if needed.
	RequireSecondFactor bool `json:"require_second_factor"`
}

// Freeze is a merchant's payout freeze in one contour: while frozen no
// register is formed and payable is 0.00; payments are accepted as usual.
type Freeze struct {
	MerchantID string
	Test       bool
	Frozen     bool
	Reason     FreezeReason
	FrozenAt   *time.Time
	UnfrozenAt *time.Time
}

// Status returns the contract's SettlementStatus.
func (f *Freeze) Status(m *Merchant) SettlementStatus {
	return SettlementStatus{PayoutsFrozen: f.Frozen, FrozenReason: f.Reason, FrozenAt: f.FrozenAt,
		UnfrozenAt: f.UnfrozenAt, SettlementDelayDays: m.SettlementDelayDays}
}

// Shop is a sub-merchant storefront with its own keys, region and settings.
type Shop struct {
	ID              string         `json:"id"`
	MerchantID      string         `json:"merchant_id"`
	Region          Region         `json:"region"`
	Name            string         `json:"name"`
	DefaultCurrency money.Currency `json:"default_currency"`
	// ActivatedAt is set when an operator activates the shop; live keys
	// answer `shop_not_live` until then.
	ActivatedAt       *time.Time   `json:"activated_at,omitempty"`
	Blocked           bool         `json:"blocked"`
	PaymentsSuspended bool         `json:"payments_suspended"`
	Settings          ShopSettings `json:"settings"`
	CreatedAt         time.Time    `json:"created_at"`
}

// Live reports whether live keys of the shop work.
func (s *Shop) Live() bool { return s.ActivatedAt != nil }

// ShopSettings are the operator-set options of a shop. Zero values mean the
// documented default, so an old row never lacks a setting.
type ShopSettings struct {
	// RequestsPerMinute limits all requests per key (default 600).
	RequestsPerMinute int `json:"requests_per_minute,omitempty"`
	// PaymentsPerMinute limits payment creations per key (default 120).
	PaymentsPerMinute int `json:"payments_per_minute,omitempty"`
	// IPAllowlist holds addresses and CIDR prefixes; empty allows every
	// address.
	IPAllowlist []string `json:"ip_allowlist,omitempty"`
	// DisplayName builds Payment.merchant_display_name (default: shop name).
	DisplayName string `json:"display_name,omitempty"`
	// StatementName builds Payment.statement_descriptor (default: derived
	// from the shop name).
	StatementName string `json:"statement_name,omitempty"`
	// PaymentLifetimeSeconds is the default payment lifetime (default 24 h).
	PaymentLifetimeSeconds int64 `json:"payment_lifetime_seconds,omitempty"`
	// MethodsDisabled switches payment methods off for the shop.
	MethodsDisabled []string `json:"methods_disabled,omitempty"`
	// AuthorizeRequestWebhook turns on the `payment.authorize_request`
	// pre-check; AuthorizeRequestDefaultAllow decides when no answer comes.
	AuthorizeRequestWebhook      bool `json:"authorize_request_webhook,omitempty"`
	AuthorizeRequestDefaultAllow bool `json:"authorize_request_default_allow,omitempty"`
	// Tariffs set the fee per method and currency; defaultTariffs apply
	// where none matches.
	Tariffs []Tariff `json:"tariffs,omitempty"`
	// Limits are the shop's portfolio limits.
	Limits PortfolioLimits `json:"limits,omitempty"`
	// HoldDays is how long an authorization waits for capture, per method
	// (default 7 days).
	HoldDays map[string]int `json:"hold_days,omitempty"`
	// Ranges override the per-transaction range of a method in a currency.
	Ranges map[string]map[money.Currency]Range `json:"ranges,omitempty"`
	// Reserve is the rolling reserve per currency (Shop.settlement.reserve).
	Reserve []ReserveRule `json:"reserve,omitempty"`
	// RefundBeyondAvailable lets merchant refunds use more than the payment's
	// unreleased part and positive available (an operator's exception to
	// the balance rule: they may then drive available negative).
	RefundBeyondAvailable bool `json:"refund_beyond_available,omitempty"`
	// DisputeFees are the bank fine and the service fee a dispute opened
	// without its own (the sandbox's) is charged when lost, per currency.
	DisputeFees []DisputeFee `json:"dispute_fees,omitempty"`
	// PayoutFees are the payout tariffs per currency; DefaultPayoutFeeBps
	// applies where none is set.
	PayoutFees []PayoutFee `json:"payout_fees,omitempty"`
	// PayoutRanges override the amount range of one payout per currency.
	PayoutRanges map[money.Currency]Range `json:"payout_ranges,omitempty"`
	// EmbedOrigins are the origins of the merchant's pages that may frame
	// the shop's embedded payment form (docs/embedded.md), serialized as
	// browsers write them; empty lets no page embed it.
	EmbedOrigins []string `json:"embed_origins,omitempty"`
	// TimeZone is the IANA name of the zone the dashboard shows the
	// shop's times in (docs/languages.md, Times); empty is its region's,
	// RegionTimeZone.
	TimeZone string `json:"time_zone,omitempty"`
}

// RegionTimeZone is the zone of a region's shops when their settings name
// none: Moscow's for ru, Almaty's for kz (UTC+5 for all of Kazakhstan
// since 1 March 2024, as tzdata 2024a says).
func RegionTimeZone(r Region) string {
	if r == RegionKZ {
		return "Asia/Almaty"
	}
	return "Europe/Moscow"
}

// Location is the zone the shop's times are shown in: its setting, else
// its region's. The binary carries tzdata (cmd/payd imports time/tzdata),
// so both load on any machine; UTC is the answer only if they did not.
func (s *Shop) Location() *time.Location {
	name := s.Settings.TimeZone
	if name == "" {
		name = RegionTimeZone(s.Region)
	}
	loc, err := loadZone(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// zones holds each zone once loaded: time.LoadLocation reads and parses
// the zone's data on every call, which was a twentieth of the CPU of a
// dashboard page that shows times in the shop's zone. Only zones that
// loaded are kept, so it holds at most the few hundred names of the
// IANA database, whatever names are asked for.
var zones sync.Map // name → *time.Location

func loadZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

// validTimeZone reports an IANA zone name that loads: not empty, not
// "Local" (the machine's own, which a shop cannot mean).
func validTimeZone(name string) bool {
	if name == "" || name == "Local" {
		return false
	}
	_, err := loadZone(name)
	return err == nil
}

// ReserveFor returns the reserve rule of currency c (zero when none).
func (s ShopSettings) ReserveFor(c money.Currency) ReserveRule {
	for _, r := range s.Reserve {
		if r.Currency == c {
			return r
		}
	}
	return ReserveRule{Currency: c}
}

// Tariff is the fee of one method in one currency: a percentage in basis
// points plus a fixed part, at least Min (all minor units).
type Tariff struct {
	Method     string         `json:"method"`
	Currency   money.Currency `json:"currency"`
	PercentBps int64          `json:"percent_bps"`
	Fixed      int64          `json:"fixed,omitempty"`
	Min        int64          `json:"min,omitempty"`
	// HoldDays is how long captured money stays pending before it is
	// available (default 1).
	HoldDays int `json:"hold_days,omitempty"`
	// NoFeeReturn keeps the whole fee when the payment is refunded;
	// by default a refund returns the fee in proportion to its sum.
	NoFeeReturn bool `json:"no_fee_return,omitempty"`
}

// Hold returns how long captured money stays pending.
func (t Tariff) Hold() time.Duration {
	if t.HoldDays > 0 {
		return time.Duration(t.HoldDays) * 24 * time.Hour
	}
	return 24 * time.Hour
}

// FeeReturn is the fee part returned by a refund of amount out of captured,
// never more than what is left of fee: proportional, rounded half up.
func (t Tariff) FeeReturn(fee, feeReturned, captured, amount int64) int64 {
	if t.NoFeeReturn || captured == 0 {
		return 0
	}
	back := money.MulDivHalfUp(fee, amount, captured)
	return max(0, min(back, fee-feeReturned))
}

// defaultTariffs apply when a shop has no tariff for a method and currency.
// QR payments of both regions cost what SBP costs.
var defaultTariffs = map[string]int64{MethodBankCard: 280, MethodSBP: 70, MethodKZQR: 70}

// TariffFor returns the tariff in force for method and currency.
func (s ShopSettings) TariffFor(method string, c money.Currency) Tariff {
	for _, t := range s.Tariffs {
		if t.Method == method && t.Currency == c {
			return t
		}
	}
	return Tariff{Method: method, Currency: c, PercentBps: defaultTariffs[method]}
}

// Fee computes the fee of a captured sum: amount × bps / 10000 rounded half
// up to the minor unit, plus the fixed part, at least Min, never above the
// sum itself.
func (t Tariff) Fee(amount int64) int64 {
	fee := money.MulDivHalfUp(amount, t.PercentBps, 10000) + t.Fixed
	fee = max(fee, t.Min)
	return min(fee, amount)
}

// PortfolioLimits are cumulative limits per currency (zero: no limit).
type PortfolioLimits struct {
	DailyTurnover     map[money.Currency]int64 `json:"daily_turnover,omitempty"`
	MonthlyTurnover   map[money.Currency]int64 `json:"monthly_turnover,omitempty"`
	PaymentsPerMinute int                      `json:"payments_per_minute,omitempty"`
	AverageTicket     map[money.Currency]int64 `json:"average_ticket,omitempty"`
}

// DefaultHold is how long an authorization waits for capture.
const DefaultHold = 7 * 24 * time.Hour

// HoldFor returns the hold length of method.
func (s ShopSettings) HoldFor(method string) time.Duration {
	if d := s.HoldDays[method]; d > 0 {
		return time.Duration(d) * 24 * time.Hour
	}
	return DefaultHold
}

// Defaults of the contract's Limits table.
const (
	DefaultRequestsPerMinute = 600
	DefaultPaymentsPerMinute = 120
	DefaultPaymentLifetime   = 24 * time.Hour
)

// RequestLimit returns the per-key request rate in force.
func (s ShopSettings) RequestLimit() int {
	if s.RequestsPerMinute > 0 {
		return s.RequestsPerMinute
	}
	return DefaultRequestsPerMinute
}

// PaymentLimit returns the per-key payment creation rate in force.
func (s ShopSettings) PaymentLimit() int {
	if s.PaymentsPerMinute > 0 {
		return s.PaymentsPerMinute
	}
	return DefaultPaymentsPerMinute
}

// PaymentLifetime returns the default payment lifetime in force.
func (s ShopSettings) PaymentLifetime() time.Duration {
	if s.PaymentLifetimeSeconds > 0 {
		return time.Duration(s.PaymentLifetimeSeconds) * time.Second
	}
	return DefaultPaymentLifetime
}

// MethodEnabled reports whether the shop has not switched method off.
func (s ShopSettings) MethodEnabled(method string) bool {
	for _, m := range s.MethodsDisabled {
		if m == method {
			return false
		}
	}
	return true
}

// AllowsIP reports whether ip may use the shop's keys.
func (s ShopSettings) AllowsIP(ip netip.Addr) bool {
	if len(s.IPAllowlist) == 0 {
		return true
	}
	ip = ip.Unmap()
	for _, entry := range s.IPAllowlist {
		if p, err := netip.ParsePrefix(entry); err == nil {
			if p.Contains(ip) {
				return true
			}
			continue
		}
		if a, err := netip.ParseAddr(entry); err == nil && a.Unmap() == ip {
			return true
		}
	}
	return false
}

// ValidateAllowlist checks every entry of an allowlist.
func ValidateAllowlist(list []string) error {
	for i, entry := range list {
		if _, err := netip.ParsePrefix(entry); err == nil {
			continue
		}
		if _, err := netip.ParseAddr(entry); err == nil {
			continue
		}
		return Invalid("ip_allowlist."+strconv.Itoa(i), "%q is neither an IP address nor a CIDR prefix", entry)
	}
	return nil
}
