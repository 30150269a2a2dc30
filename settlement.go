package payd

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// SettlementState is a register's state (States: Settlement).
type SettlementState string

// Register states: draft → approved → sent → paid or failed.
const (
	SettlementDraft    SettlementState = "draft"
	SettlementApproved SettlementState = "approved"
	SettlementSent     SettlementState = "sent"
	SettlementPaid     SettlementState = "paid"
	SettlementFailed   SettlementState = "failed"
)

// SettlementStateAll returns every register state, in the order a
// register passes them.
func SettlementStateAll() []SettlementState {
	return []SettlementState{SettlementDraft, SettlementApproved, SettlementSent, SettlementPaid, SettlementFailed}
}

// Valid reports whether s is a known state.
func (s SettlementState) Valid() bool { return slices.Contains(SettlementStateAll(), s) }

// settlementNext is the state table of registers.
var settlementNext = map[SettlementState][]SettlementState{
	SettlementDraft:    {SettlementApproved},
	SettlementApproved: {SettlementSent},
	SettlementSent:     {SettlementPaid, SettlementFailed},
}

// Settlement is a register: one merchant, contour and currency, one period
// of the regional calendar, its amounts computed from the ledger entries of
// the period.
type Settlement struct {
	ID              string          `json:"id"`
	MerchantID      string          `json:"merchant_id"`
	Test            bool            `json:"test"`
	Currency        money.Currency  `json:"currency"`
	PeriodFrom      string          `json:"period_from"`
	PeriodTo        string          `json:"period_to"`
	Status          SettlementState `json:"status"`
	Gross           int64           `json:"gross"`
	Fees            int64           `json:"fees"`
	Refunds         int64           `json:"refunds"`
	ReserveHeld     int64           `json:"reserve_held"`
	ReserveReleased int64           `json:"reserve_released"`
	DepositWithheld int64           `json:"deposit_withheld"`
	// Chargebacks is what lost and expired disputes gave the bank;
	// BankFines and ChargebackFees what they cost beyond it.
	Chargebacks    int64 `json:"chargebacks"`
	BankFines      int64 `json:"bank_fines"`
	ChargebackFees int64 `json:"chargeback_fees"`
	// DisputesHeld is the sum disputes opened in the period held;
	// DisputesReleased what left the holds (won, or charged back).
	DisputesHeld     int64 `json:"disputes_held"`
	DisputesReleased int64 `json:"disputes_released"`
	// PayoutsHeld is what payouts created in the period took from
	// available (sums and fees); PayoutsReleased what canceled ones gave
	// back. Payouts and PayoutFees are what succeeded ones sent out and
	// were charged.
	PayoutsHeld         int64      `json:"payouts_held"`
	PayoutsReleased     int64      `json:"payouts_released"`
	Payouts             int64      `json:"payouts"`
	PayoutFees          int64      `json:"payout_fees"`
	Net                 int64      `json:"net"`
	SettlementDelayDays int        `json:"settlement_delay_days"`
	Entries             int        `json:"entries"`
	PaidAt              *time.Time `json:"paid_at,omitempty"`
	CreatedAt           time.Time  `json:"created_at"`
}

// SettlementJSON is the contract's Settlement object.
type SettlementJSON struct {
	ID                    string          `json:"id"`
	Status                SettlementState `json:"status"`
	PeriodFrom            string          `json:"period_from"`
	PeriodTo              string          `json:"period_to"`
	Currency              money.Currency  `json:"currency"`
	GrossAmount           money.Amount    `json:"gross_amount"`
	FeeAmount             money.Amount    `json:"fee_amount"`
	RefundsAmount         money.Amount    `json:"refunds_amount"`
	NetAmount             money.Signed    `json:"net_amount"`
	Test                  bool            `json:"test"`
	ChargebacksAmount     money.Amount    `json:"chargebacks_amount"`
	ReserveHeldAmount     money.Amount    `json:"reserve_held_amount"`
	ReserveReleasedAmount money.Amount    `json:"reserve_released_amount"`
	DepositWithheldAmount money.Amount    `json:"deposit_withheld_amount"`
	BankFinesAmount       money.Amount    `json:"bank_fines_amount"`
	ChargebackFeesAmount  money.Amount    `json:"chargeback_fees_amount"`
	DisputesAmount        money.Amount    `json:"disputes_amount"`
	PayoutsAmount         money.Amount    `json:"payouts_amount"`
	PayoutsReleasedAmount money.Amount    `json:"payouts_released_amount"`
	SettlementDelayDays   int             `json:"settlement_delay_days"`
	PaidAt                *time.Time      `json:"paid_at,omitempty"`
	ReportURL             string          `json:"report_url,omitempty"`
}

// View returns the contract's object; reportURL is a fresh signed link.
func (st *Settlement) View(reportURL string) *SettlementJSON {
	a := func(v int64) money.Amount { return money.New(v, st.Currency) }
	return &SettlementJSON{ID: st.ID, Status: st.Status, PeriodFrom: st.PeriodFrom, PeriodTo: st.PeriodTo, Currency: st.Currency,
		GrossAmount: a(st.Gross), FeeAmount: a(max(0, st.Fees)), RefundsAmount: a(st.Refunds),
		NetAmount: money.Signed{Minor: st.Net, Currency: st.Currency}, Test: st.Test,
		ChargebacksAmount: a(st.Chargebacks), ReserveHeldAmount: a(st.ReserveHeld), ReserveReleasedAmount: a(st.ReserveReleased),
		DepositWithheldAmount: a(max(0, st.DepositWithheld)), BankFinesAmount: a(st.BankFines),
		ChargebackFeesAmount: a(st.ChargebackFees), DisputesAmount: a(st.DisputesHeld),
		PayoutsAmount: a(st.PayoutsHeld), PayoutsReleasedAmount: a(st.PayoutsReleased),
		SettlementDelayDays: st.SettlementDelayDays, PaidAt: st.PaidAt, ReportURL: reportURL}
}

// SettlementListParams filters `GET /settlements`.
type SettlementListParams struct {
	ListParams
	MerchantID string
	Test       bool
	PeriodFrom string
	PeriodTo   string
	Currency   money.Currency
	Status     SettlementState
}

// SettlementQueueParams filter the operator's queue of registers across
// merchants (`GET /admin/v1/settlements`): one contour, and optionally one
// merchant, state and currency; newest first like every list.
type SettlementQueueParams struct {
	ListParams
	Test       bool
	MerchantID string
	Status     SettlementState
	Currency   money.Currency
}

// RegionOf is the calendar of a currency: RUB and the foreign currencies
// follow Moscow, KZT Almaty.
func RegionOf(c money.Currency) Region {
	if c == money.KZT {
		return RegionKZ
	}
	return RegionRU
}

// Location returns the region's time zone (ru: Europe/Moscow, kz:
// Asia/Almaty). Both have no daylight saving time; fixed offsets keep the
// service independent of the machine's zone database.
func (r Region) Location() *time.Location {
	if r == RegionKZ {
		return time.FixedZone("Asia/Almaty", 5*3600)
	}
	return time.FixedZone("Europe/Moscow", 3*3600)
}

// computeSettlement sums a period's entries: gross captured, fees (net of
// fees returned), refunds sent, reserve held and released, deposit withheld
// (net of deposit released), chargebacks, bank fines and chargeback fees,
// and the dispute holds placed and left; net is what the period adds to the
// merchant's payable money: gross − fees − refunds − chargebacks − reserve
// held + reserve released − deposit withheld − bank fines − chargeback fees
// − disputes held + disputes released − payouts held + payouts released
// (a payout leaves available when it is created, and comes back only if it
// is canceled; its success moves nothing of available). What a dispute or its loss takes
// from the reserve counts as reserve released, and from the deposit as
// deposit released, because those sums were out of net already.
func computeSettlement(st *Settlement, entries []*ledger.Entry) {
	for _, e := range entries {
		dispute := e.Kind.OfDispute()
		for _, p := range e.Postings {
			switch {
			case e.Kind == ledger.KindPayoutCreated && p.Account.Bucket == ledger.PendingPayouts:
				st.PayoutsHeld += p.Amount
			case e.Kind == ledger.KindPayoutCanceled && p.Account.Bucket == ledger.PendingPayouts:
				st.PayoutsReleased += -p.Amount
			case e.Kind == ledger.KindPayoutSucceeded && p.Account.Bucket == ledger.PayoutClearing:
				st.Payouts += p.Amount
			case e.Kind == ledger.KindPayoutSucceeded && p.Account.Bucket == ledger.PayoutFees:
				st.PayoutFees += p.Amount
			case dispute && p.Account.Bucket == ledger.Disputed && p.Amount > 0:
				st.DisputesHeld += p.Amount
			case dispute && p.Account.Bucket == ledger.Disputed:
				st.DisputesReleased += -p.Amount
			case dispute && p.Account.Bucket == ledger.Reserve:
				st.ReserveReleased += -p.Amount
			case dispute && p.Account.Bucket == ledger.Deposit:
				st.DepositWithheld += p.Amount
			case e.Kind == ledger.KindDisputeChargeback && p.Account.Bucket == ledger.ProviderClearing:
				st.Chargebacks += p.Amount
			case p.Account.Bucket == ledger.BankFines:
				st.BankFines += p.Amount
			case p.Account.Bucket == ledger.ChargebackFees:
				st.ChargebackFees += p.Amount
			case e.Kind == ledger.KindPaymentCaptured && p.Account.Bucket == ledger.ProviderClearing:
				st.Gross += -p.Amount
			case p.Account.Bucket == ledger.Fees:
				st.Fees += p.Amount
			case e.Kind == ledger.KindRefundSucceeded && p.Account.Bucket == ledger.ProviderClearing:
				st.Refunds += p.Amount
			case e.Kind == ledger.KindPaymentCaptured && p.Account.Bucket == ledger.Reserve:
				st.ReserveHeld += p.Amount
			case e.Kind == ledger.KindReserveReleased && p.Account.Bucket == ledger.Reserve:
				st.ReserveReleased += -p.Amount
			case (e.Kind == ledger.KindDepositWithheld || e.Kind == ledger.KindDepositReleased) && p.Account.Bucket == ledger.Deposit:
				st.DepositWithheld += p.Amount
			}
		}
	}
	st.Entries = len(entries)
	st.Net = st.Gross - st.Fees - st.Refunds - st.Chargebacks - st.ReserveHeld + st.ReserveReleased - st.DepositWithheld -
		st.BankFines - st.ChargebackFees - st.DisputesHeld + st.DisputesReleased - st.PayoutsHeld + st.PayoutsReleased
}

// FormSettlement forms the register of one merchant, contour, currency and
// day of the regional calendar, from the ledger entries of that day. It is
// refused while payouts are frozen, and a period is registered once.
func (s *Service) FormSettlement(ctx context.Context, merchantID string, test bool, c money.Currency, day string) (*Settlement, error) {
	st, outcome, err := s.formSettlement(ctx, SettlementDay{MerchantID: merchantID, Test: test, Currency: c, Day: day}, false)
	if outcome == dayRegisteredBefore {
		return nil, errRegistered(day)
	}
	return st, err
}

// dayOutcome is what forming a day's register came to, besides an error.
type dayOutcome int

const (
	dayRegistered       dayOutcome = iota + 1 // a register was formed now
	dayRegisteredBefore                       // the day had one already
	dayEmpty                                  // nothing moved that day (skipEmpty)
)

// formSettlement forms the register of d under the merchant's lock. Each
// outcome but an error removes d from the recorded settlement days in the
// same transaction, so the scheduled run visits a day until it is
// registered and never after.
func (s *Service) formSettlement(ctx context.Context, d SettlementDay, skipEmpty bool) (*Settlement, dayOutcome, error) {
	loc := RegionOf(d.Currency).Location()
	start, err := time.ParseInLocation(time.DateOnly, d.Day, loc)
	if err != nil {
		return nil, 0, Invalid("date", "date must be YYYY-MM-DD")
	}
	end := start.AddDate(0, 0, 1)
	var st *Settlement
	var outcome dayOutcome
	err = s.store.Tx(ctx, func(tx Tx) error {
		st, outcome = nil, 0
		m, err := tx.MerchantGetForUpdate(ctx, d.MerchantID)
		if err != nil {
			return notFoundAs(err, "merchant")
		}
		f, err := tx.FreezeGet(ctx, d.MerchantID, d.Test)
		if err != nil {
			return err
		}
		if f.Frozen {
			return Errorf(CodeInvalidState, "payouts are frozen (%s): no register is formed", f.Reason)
		}
		if now := s.clock.Now().In(loc); end.After(now) {
			return Errorf(CodeInvalidState, "the period %s is not over yet", d.Day)
		}
		entries, err := tx.LedgerEntriesOf(ctx, d.MerchantID, d.Test, d.Currency, start.UTC(), end.UTC())
		if err != nil {
			return err
		}
		if skipEmpty && len(entries) == 0 {
			outcome = dayEmpty
			return tx.SettlementDayDelete(ctx, d)
		}
		now := s.clock.Now()
		st = &Settlement{ID: s.ids.NewFor(PrefixSettlement, now, d.MerchantID), MerchantID: d.MerchantID, Test: d.Test, Currency: d.Currency,
			PeriodFrom: d.Day, PeriodTo: d.Day, Status: SettlementDraft, SettlementDelayDays: m.SettlementDelayDays, CreatedAt: now}
		computeSettlement(st, entries)
		switch err := tx.SettlementInsert(ctx, st); {
		case errors.Is(err, ErrConflict):
			st, outcome = nil, dayRegisteredBefore
		case err != nil:
			return err
		default:
			outcome = dayRegistered
		}
		return tx.SettlementDayDelete(ctx, d)
	})
	if err != nil {
		return nil, 0, err
	}
	return st, outcome, nil
}

// errRegistered refuses a register of a day that has one.
func errRegistered(day string) error {
	return Errorf(CodeInvalidState, "the period %s is already registered", day)
}

// AdvanceSettlement moves a register along its state table (operator
// actions). Paid moves the net sum out of available into payouts and emits
// settlement.paid once per shop of the merchant.
func (s *Service) AdvanceSettlement(ctx context.Context, id string, to SettlementState) (*Settlement, error) {
	var st *Settlement
	err := s.store.Tx(ctx, func(tx Tx) (err error) {
		if st, err = tx.SettlementGetForUpdate(ctx, id); err != nil {
			return notFoundAs(err, "settlement")
		}
		if _, err := tx.MerchantGetForUpdate(ctx, st.MerchantID); err != nil {
			return err
		}
		if !slices.Contains(settlementNext[st.Status], to) {
			return Errorf(CodeInvalidState, "a %s register cannot become %s", st.Status, to)
		}
		st.Status = to
		if to == SettlementPaid {
			now := s.clock.Now()
			st.PaidAt = &now
			if st.Net > 0 {
				if err := s.post(ctx, tx, ledger.KindSettlementPaid, "settlement", st.ID, ledger.Move(
					merchantAccount(st.MerchantID, st.Test, st.Currency, ledger.Available, ""),
					serviceAccount(st.Test, st.Currency, ledger.Payouts), st.Net)); err != nil {
					return err
				}
			}
		}
		if err := tx.SettlementUpdate(ctx, st); err != nil {
			return err
		}
		if to == SettlementPaid {
			if _, err := s.RecordMerchantEvent(ctx, tx, st.MerchantID, st.Test, EventSettlementPaid, "settlement", st.ID, st.View("")); err != nil {
				return err
			}
			return s.autoFreeze(ctx, tx, st.MerchantID, st.Test)
		}
		return nil
	})
	return st, err
}

// ReportTTL is how long a report link works (Limits: report_url).
const ReportTTL = 24 * time.Hour

// ReportURL signs a link to a register's CSV report, valid ReportTTL.
func (s *Service) ReportURL(st *Settlement) string {
	exp, sig := s.reportLinks.SignExpiring(st.ID, s.clock.Now().Add(ReportTTL))
	return s.publicURL + s.paths.SettlementReport + st.ID + ".csv?expires=" + exp + "&sig=" + sig
}

// ReportEntries checks a report link and returns the register and the
// ledger entries of its period.
func (s *Service) ReportEntries(ctx context.Context, id, exp, sig string) (*Settlement, []*ledger.Entry, error) {
	if !s.reportLinks.VerifyExpiring(id, exp, sig, s.clock.Now()) {
		return nil, nil, NotFound("report")
	}
	var st *Settlement
	var entries []*ledger.Entry
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if st, err = tx.SettlementGet(ctx, id); err != nil {
			return err
		}
		entries, err = settlementEntries(ctx, tx, st)
		return err
	})
	return st, entries, notFoundAs(err, "report")
}

// SettlementEntries is a register of the principal's merchant and contour
// with the ledger entries of its period, the rows of its report, for the
// dashboard, which has the user's session instead of a signed link.
func (s *Service) SettlementEntries(ctx context.Context, p *Principal, id string) (*Settlement, []*ledger.Entry, error) {
	st, err := s.GetSettlement(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	entries, err := read(ctx, s, "read settlement entries", func(tx Tx) ([]*ledger.Entry, error) { return settlementEntries(ctx, tx, st) })
	return st, entries, err
}

// settlementEntries reads the ledger entries of a register's period, whole
// days of its region's calendar.
func settlementEntries(ctx context.Context, tx Tx, st *Settlement) ([]*ledger.Entry, error) {
	loc := RegionOf(st.Currency).Location()
	start, _ := time.ParseInLocation(time.DateOnly, st.PeriodFrom, loc)
	end, _ := time.ParseInLocation(time.DateOnly, st.PeriodTo, loc)
	return tx.LedgerEntriesOf(ctx, st.MerchantID, st.Test, st.Currency, start.UTC(), end.AddDate(0, 0, 1).UTC())
}

// GetSettlement returns a register of the principal's merchant and contour.
func (s *Service) GetSettlement(ctx context.Context, p *Principal, id string) (st *Settlement, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		st, err = tx.SettlementGet(ctx, id)
		return err
	})
	if err != nil {
		return nil, notFoundAs(err, "settlement")
	}
	if st.MerchantID != p.Shop.MerchantID || st.Test != p.Test() {
		return nil, NotFound("settlement")
	}
	return st, nil
}

// ListSettlementQueue lists registers across merchants for the
// operator's queue, newest first.
func (s *Service) ListSettlementQueue(ctx context.Context, p *SettlementQueueParams) (Page[*Settlement], error) {
	return read(ctx, s, "list settlement queue", func(tx Tx) (Page[*Settlement], error) { return tx.SettlementQueue(ctx, p) })
}

// ListSettlements lists the registers of the principal's merchant and
// contour, newest first.
func (s *Service) ListSettlements(ctx context.Context, p *Principal, params *SettlementListParams) (Page[*Settlement], error) {
	params.MerchantID, params.Test = p.Shop.MerchantID, p.Test()
	return read(ctx, s, "list settlements", func(tx Tx) (Page[*Settlement], error) { return tx.SettlementList(ctx, params) })
}
