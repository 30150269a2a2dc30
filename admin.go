package payd

import (
	"context"
	"errors"
	"strconv"

	"github.com/paydhq/payd/money"
)

// MerchantCreate is the operator's request to register a merchant.
type MerchantCreate struct {
	Name                string `json:"name"`
	LegalName           string `json:"legal_name"`
	TaxID               string `json:"tax_id"`
	SettlementDelayDays *int   `json:"settlement_delay_days"`
}

// DefaultSettlementDelayDays is the settlement delay of a new merchant.
const DefaultSettlementDelayDays = 1

// CreateMerchant registers a merchant.
func (s *Service) CreateMerchant(ctx context.Context, in MerchantCreate) (*Merchant, error) {
	if err := checkText("name", in.Name, 1, 256); err != nil {
		return nil, err
	}
	if err := checkText("legal_name", in.LegalName, 0, 512); err != nil {
		return nil, err
	}
	if err := checkText("tax_id", in.TaxID, 0, 32); err != nil {
		return nil, err
	}
	delay := DefaultSettlementDelayDays
	if in.SettlementDelayDays != nil {
		if *in.SettlementDelayDays < 0 || *in.SettlementDelayDays > 30 {
			return nil, Invalid("settlement_delay_days", "must be 0..30")
		}
		delay = *in.SettlementDelayDays
	}
	now := s.clock.Now()
	m := &Merchant{
		ID: s.ids.New(PrefixMerchant, now), Name: in.Name, LegalName: in.LegalName, TaxID: in.TaxID,
		CreatedAt: now, SettlementDelayDays: delay,
	}
	NoteOperatorObject(ctx, m.ID, m.ID)
	err := s.store.Tx(ctx, func(tx Tx) error { return tx.MerchantInsert(ctx, m) })
	return m, err
}

// GetMerchant returns a merchant.
func (s *Service) GetMerchant(ctx context.Context, id string) (m *Merchant, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		m, err = tx.MerchantGet(ctx, id)
		return err
	})
	return m, notFoundAs(err, "merchant")
}

// ListMerchants lists merchants, newest first.
func (s *Service) ListMerchants(ctx context.Context, p *MerchantListParams) (Page[*Merchant], error) {
	return read(ctx, s, "list merchants", func(tx Tx) (Page[*Merchant], error) { return tx.MerchantList(ctx, p) })
}

// ShopCreate is the operator's request to open a shop for a merchant.
type ShopCreate struct {
	MerchantID      string         `json:"merchant_id"`
	Region          Region         `json:"region"`
	Name            string         `json:"name"`
	DefaultCurrency money.Currency `json:"default_currency"`
	Settings        *ShopSettings  `json:"settings"`
}

// CreateShop opens a shop. It starts in test mode only: live keys work after
// ActivateShop.
func (s *Service) CreateShop(ctx context.Context, in ShopCreate) (*Shop, error) {
	if !in.Region.Valid() {
		return nil, Invalid("region", "must be ru or kz")
	}
	if err := checkText("name", in.Name, 1, 256); err != nil {
		return nil, err
	}
	if in.DefaultCurrency == "" {
		in.DefaultCurrency = map[Region]money.Currency{RegionRU: money.RUB, RegionKZ: money.KZT}[in.Region]
	}
	if !in.DefaultCurrency.Valid() {
		return nil, Invalid("default_currency", "must be one of RUB, KZT, USD, EUR")
	}
	settings := ShopSettings{}
	if in.Settings != nil {
		settings = *in.Settings
	}
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	shop := &Shop{
		ID: s.ids.NewFor(PrefixShop, now, in.MerchantID), MerchantID: in.MerchantID, Region: in.Region, Name: in.Name,
		DefaultCurrency: in.DefaultCurrency, Settings: settings, CreatedAt: now,
	}
	err := s.store.Tx(ctx, func(tx Tx) error {
		if _, err := tx.MerchantGet(ctx, in.MerchantID); err != nil {
			if errors.Is(err, ErrNoRows) {
				return Invalid("merchant_id", "no merchant %q", in.MerchantID)
			}
			return err
		}
		// The merchant's list of shops gains one.
		tx.AfterCommit(func() { s.auth.invalidate(shop.ID) })
		return tx.ShopInsert(ctx, shop)
	})
	return shop, err
}

// GetShop returns a shop by id (operator view).
func (s *Service) GetShop(ctx context.Context, id string) (shop *Shop, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		shop, err = tx.ShopGet(ctx, id)
		return err
	})
	return shop, notFoundAs(err, "shop")
}

// ListShops lists shops, newest first, optionally of one merchant.
func (s *Service) ListShops(ctx context.Context, p *ShopListParams) (Page[*Shop], error) {
	return read(ctx, s, "list shops", func(tx Tx) (Page[*Shop], error) { return tx.ShopList(ctx, p) })
}

// MerchantShops returns a merchant's shops, newest first, at most
// MaxPageSize: what the dashboard's every page reads to show and choose
// the shop. It is served from the process's cache for up to AuthCacheTTL,
// with the same invalidation as authentication's; the shops returned are
// shared and must not be changed.
func (s *Service) MerchantShops(ctx context.Context, merchantID string) ([]*Shop, error) {
	shops, ok, gen := s.auth.shopsOf(merchantID)
	if ok {
		return shops, nil
	}
	v, err, _ := s.auth.loads.Do("shops:"+merchantID+"@"+strconv.FormatUint(gen, 10), func() (any, error) {
		page, err := s.ListShops(context.WithoutCancel(ctx), &ShopListParams{MerchantID: merchantID,
			ListParams: ListParams{Limit: MaxPageSize}})
		if err != nil {
			return nil, err
		}
		s.auth.putShops(merchantID, page.Items, gen)
		return page.Items, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]*Shop), nil
}

// UpdateShopSettings replaces the shop's settings with what change makes
// of the current ones, read in the update's transaction, once they pass
// ShopSettings.Validate. An error of change refuses the update as it is.
// The operator API's change merges its request's patch (operator).
func (s *Service) UpdateShopSettings(ctx context.Context, id string, change func(current ShopSettings) (ShopSettings, error)) (*Shop, error) {
	return s.changeShop(ctx, id, func(shop *Shop) error {
		next, err := change(shop.Settings)
		if err != nil {
			return err
		}
		if err := next.Validate(); err != nil {
			return err
		}
		NoteOperatorChange(ctx, shop.Settings, next)
		shop.Settings = next
		return nil
	})
}

// ShopAction is an operator's state change of a shop.
type ShopAction string

// Shop actions of the operator API.
const (
	ShopActivate ShopAction = "activate"
	ShopBlock    ShopAction = "block"
	ShopUnblock  ShopAction = "unblock"
	ShopSuspend  ShopAction = "suspend"
	ShopResume   ShopAction = "resume"
)

// ShopActionAll returns every action of the operator API on a shop.
func ShopActionAll() []ShopAction {
	return []ShopAction{ShopActivate, ShopBlock, ShopUnblock, ShopSuspend, ShopResume}
}

// ChangeShopState applies an operator action. Each action is idempotent:
// blocking a blocked shop changes nothing.
func (s *Service) ChangeShopState(ctx context.Context, id string, action ShopAction) (*Shop, error) {
	return s.changeShop(ctx, id, func(shop *Shop) error {
		switch action {
		case ShopActivate:
			if shop.ActivatedAt == nil {
				now := s.clock.Now()
				shop.ActivatedAt = &now
			}
		case ShopBlock, ShopUnblock:
			shop.Blocked = action == ShopBlock
		case ShopSuspend, ShopResume:
			shop.PaymentsSuspended = action == ShopSuspend
		default:
			return Invalid("action", "unknown action %q", action)
		}
		return nil
	})
}

func (s *Service) changeShop(ctx context.Context, id string, change func(*Shop) error) (*Shop, error) {
	var shop *Shop
	err := s.store.Tx(ctx, func(tx Tx) (err error) {
		if shop, err = tx.ShopGetForUpdate(ctx, id); err != nil {
			return notFoundAs(err, "shop")
		}
		NoteOperatorObject(ctx, shop.ID, shop.MerchantID)
		if err := change(shop); err != nil {
			return err
		}
		// After the commit: the change holds for the next request.
		tx.AfterCommit(func() { s.auth.invalidate(id) })
		return tx.ShopUpdate(ctx, shop)
	})
	return shop, err
}

// IssueKey creates a key for a shop and mode and returns it with its secret,
// which is never available again. Earlier keys of the same shop and mode keep
// working for KeyOverlap.
func (s *Service) IssueKey(ctx context.Context, shopID string, mode Mode) (*APIKey, string, error) {
	return s.issueKey(ctx, shopID, mode, nil, nil)
}

// RotateKey is IssueKey for the principal's shop and mode, done by a
// dashboard user (p.Actor), and written to the audit log with the key.
// newest is the id of the mode's newest key the user saw ("" for none):
// when another key was issued since, nothing is issued and the answer is
// invalid_state. Rotation is not an idempotent operation (its secret is
// never stored to be answered again), so this is what makes a form sent
// twice one rotation; the check runs under the shop's lock.
func (s *Service) RotateKey(ctx context.Context, p *Principal, newest string) (*APIKey, string, error) {
	return s.issueKey(ctx, p.Shop.ID, p.Mode, func(tx Tx) error {
		if err := s.permit(ctx, tx, p, AuditRotateKey); err != nil {
			return err
		}
		keys, err := tx.KeyListByShop(ctx, p.Shop.ID)
		if err != nil {
			return err
		}
		last := ""
		for _, k := range keys { // newest first
			if k.Mode == p.Mode {
				last = k.ID
				break
			}
		}
		if last != newest {
			return Errorf(CodeInvalidState, "a newer key was issued after this form was shown; its secret was shown once, to whoever issued it")
		}
		return nil
	}, func(tx Tx, key *APIKey) error {
		if p.Actor == nil {
			return nil
		}
		return s.auditShop(ctx, tx, p.Actor, p.Shop.MerchantID, p.Shop.ID, p.Mode, AuditRotateKey, key.ID)
	})
}

// issueKey issues a key; check, when set, runs under the shop's lock before
// anything is written, then after the key is inserted, both in the same
// transaction.
func (s *Service) issueKey(ctx context.Context, shopID string, mode Mode, check func(Tx) error, then func(Tx, *APIKey) error) (*APIKey, string, error) {
	if !mode.Valid() {
		return nil, "", Invalid("mode", "must be test or live")
	}
	var key *APIKey
	var secret string
	err := s.store.Tx(ctx, func(tx Tx) error {
		shop, err := tx.ShopGetForUpdate(ctx, shopID)
		if err != nil {
			return notFoundAs(err, "shop")
		}
		if check != nil {
			if err := check(tx); err != nil {
				return err
			}
		}
		now := s.clock.Now()
		secret = NewSecret(mode, shop.Region)
		key = &APIKey{
			ID: s.ids.NewFor(PrefixKey, now, shop.MerchantID), ShopID: shop.ID, Mode: mode, Hint: SecretHint(secret),
			Hash: HashSecret(secret), CreatedAt: now,
		}
		NoteOperatorObject(ctx, key.ID, shop.MerchantID)
		if err := tx.KeyExpireOthers(ctx, shop.ID, mode, key.ID, now.Add(KeyOverlap)); err != nil {
			return err
		}
		tx.AfterCommit(func() { s.auth.invalidate(shopID) })
		if err := tx.KeyInsert(ctx, key); err != nil || then == nil {
			return err
		}
		return then(tx, key)
	})
	return key, secret, err
}

// ListKeys lists a shop's keys without secrets.
func (s *Service) ListKeys(ctx context.Context, shopID string) (keys []*APIKey, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		if _, err := tx.ShopGet(ctx, shopID); err != nil {
			return notFoundAs(err, "shop")
		}
		keys, err = tx.KeyListByShop(ctx, shopID)
		return err
	})
	return keys, err
}

// RevokeKey stops a key at once.
func (s *Service) RevokeKey(ctx context.Context, keyID string) (key *APIKey, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.KeyRevoke(ctx, keyID, s.clock.Now()); err != nil {
			return notFoundAs(err, "key")
		}
		if key, err = tx.KeyGet(ctx, keyID); err != nil {
			return err
		}
		tx.AfterCommit(func() { s.auth.invalidate(key.ShopID) })
		return nil
	})
	return key, err
}

// Validate checks operator-set shop settings.
func (st ShopSettings) Validate() error {
	if st.RequestsPerMinute < 0 || st.RequestsPerMinute > 1_000_000 {
		return Invalid("requests_per_minute", "must be 0 (default) .. 1000000")
	}
	if st.PaymentsPerMinute < 0 || st.PaymentsPerMinute > 1_000_000 {
		return Invalid("payments_per_minute", "must be 0 (default) .. 1000000")
	}
	if err := ValidateAllowlist(st.IPAllowlist); err != nil {
		return err
	}
	if err := checkText("display_name", st.DisplayName, 0, 256); err != nil {
		return err
	}
	if err := checkText("statement_name", st.StatementName, 0, 32); err != nil {
		return err
	}
	if st.PaymentLifetimeSeconds != 0 && (st.PaymentLifetimeSeconds < 300 || st.PaymentLifetimeSeconds > 7*86400) {
		return Invalid("payment_lifetime_seconds", "must be 300..604800 (5 minutes to 7 days)")
	}
	if err := st.validatePayoutSettings(); err != nil {
		return err
	}
	if err := validateEmbedOrigins(st.EmbedOrigins); err != nil {
		return err
	}
	if st.TimeZone != "" && !validTimeZone(st.TimeZone) {
		return Invalid("time_zone", "must be an IANA time zone name such as Europe/Moscow or Asia/Almaty")
	}
	return st.validateMoneySettings()
}

// validateMoneySettings checks tariffs, holds, ranges and limits.
func (st ShopSettings) validateMoneySettings() error {
	for i, t := range st.Tariffs {
		p := "tariffs." + strconv.Itoa(i)
		switch {
		case !knownMethod(t.Method):
			return Invalid(p+".method", "unknown method %q", t.Method)
		case !t.Currency.Valid():
			return Invalid(p+".currency", "unknown currency %q", t.Currency)
		case t.PercentBps < 0 || t.PercentBps > 10000:
			return Invalid(p+".percent_bps", "must be 0..10000 (0%%..100%%)")
		case t.Fixed < 0 || t.Min < 0:
			return Invalid(p, "fixed and min must not be negative")
		}
	}
	for m, d := range st.HoldDays {
		if !knownMethod(m) || d < 1 || d > 30 {
			return Invalid("hold_days", "hold days are 1..30 per known method")
		}
	}
	for m, byCur := range st.Ranges {
		for c, r := range byCur {
			if !knownMethod(m) || !c.Valid() || r.Min < 1 || r.Max < r.Min || r.Max > 9_999_999_999_999_99 {
				return Invalid("ranges", "ranges need a known method and currency and 1 <= min <= max")
			}
		}
	}
	for _, l := range []map[money.Currency]int64{st.Limits.DailyTurnover, st.Limits.MonthlyTurnover, st.Limits.AverageTicket} {
		for c, v := range l {
			if !c.Valid() || v < 0 {
				return Invalid("limits", "limits need known currencies and non-negative amounts in minor units")
			}
		}
	}
	if st.Limits.PaymentsPerMinute < 0 {
		return Invalid("limits.payments_per_minute", "must not be negative")
	}
	return st.validateDisputeFees()
}
