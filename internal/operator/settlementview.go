package operator

import (
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// settlementJSON is a register as operators see it: the stored register,
// its sums in minor units of its currency (the merchant's contract object,
// payd.SettlementJSON, writes them as money), and a signed link to its
// CSV report, the one the merchant is given (valid payd.ReportTTL).
type settlementJSON struct {
	ID                  string               `json:"id"`
	MerchantID          string               `json:"merchant_id"`
	Test                bool                 `json:"test"`
	Currency            money.Currency       `json:"currency"`
	PeriodFrom          string               `json:"period_from"`
	PeriodTo            string               `json:"period_to"`
	Status              payd.SettlementState `json:"status"`
	Gross               int64                `json:"gross"`
	Fees                int64                `json:"fees"`
	Refunds             int64                `json:"refunds"`
	ReserveHeld         int64                `json:"reserve_held"`
	ReserveReleased     int64                `json:"reserve_released"`
	DepositWithheld     int64                `json:"deposit_withheld"`
	Chargebacks         int64                `json:"chargebacks"`
	BankFines           int64                `json:"bank_fines"`
	ChargebackFees      int64                `json:"chargeback_fees"`
	DisputesHeld        int64                `json:"disputes_held"`
	DisputesReleased    int64                `json:"disputes_released"`
	PayoutsHeld         int64                `json:"payouts_held"`
	PayoutsReleased     int64                `json:"payouts_released"`
	Payouts             int64                `json:"payouts"`
	PayoutFees          int64                `json:"payout_fees"`
	Net                 int64                `json:"net"`
	SettlementDelayDays int                  `json:"settlement_delay_days"`
	Entries             int                  `json:"entries"`
	PaidAt              *time.Time           `json:"paid_at,omitempty"`
	CreatedAt           time.Time            `json:"created_at"`
	ReportURL           string               `json:"report_url,omitempty"`
}

// settlementView is st as operators see it, with reportURL, the link
// payd.Service.ReportURL signed for it.
func settlementView(st *payd.Settlement, reportURL string) settlementJSON {
	return settlementJSON{ID: st.ID, MerchantID: st.MerchantID, Test: st.Test, Currency: st.Currency,
		PeriodFrom: st.PeriodFrom, PeriodTo: st.PeriodTo, Status: st.Status,
		Gross: st.Gross, Fees: st.Fees, Refunds: st.Refunds, ReserveHeld: st.ReserveHeld, ReserveReleased: st.ReserveReleased,
		DepositWithheld: st.DepositWithheld, Chargebacks: st.Chargebacks, BankFines: st.BankFines,
		ChargebackFees: st.ChargebackFees, DisputesHeld: st.DisputesHeld, DisputesReleased: st.DisputesReleased,
		PayoutsHeld: st.PayoutsHeld, PayoutsReleased: st.PayoutsReleased, Payouts: st.Payouts, PayoutFees: st.PayoutFees,
		Net: st.Net, SettlementDelayDays: st.SettlementDelayDays, Entries: st.Entries, PaidAt: st.PaidAt,
		CreatedAt: st.CreatedAt, ReportURL: reportURL}
}

// settlement is the view of st with its report link signed now.
func (s *server) settlement(st *payd.Settlement) settlementJSON {
	return settlementView(st, s.svc.ReportURL(st))
}
