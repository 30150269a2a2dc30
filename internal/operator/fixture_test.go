package operator

import (
	"reflect"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// The fixtures below set every field of the domain values the operator
// API answers with, so that each member of an answer, omitempty or not,
// shows in its golden file; TestFixturesAreFull keeps them so as fields
// are added.

var (
	fixAt    = time.Date(2026, 3, 1, 10, 0, 0, 123456000, time.UTC)
	fixLater = time.Date(2026, 3, 8, 10, 0, 0, 0, time.UTC)
)

func fixTime(d time.Duration) *time.Time {
	t := fixAt.Add(d)
	return &t
}

func fullMerchant() *payd.Merchant {
	return &payd.Merchant{ID: "mer_01J0000000000000000000000A", Name: "Acme", LegalName: "Acme LLC", TaxID: "7700000000",
		CreatedAt: fixAt, SettlementDelayDays: 2, AutoSettle: true,
		Chargeback:          payd.ChargebackRule{RatioBps: 150, WindowDays: 45, MinCount: 5},
		RequireSecondFactor: true}
}

func fullSettings() payd.ShopSettings {
	return payd.ShopSettings{
		RequestsPerMinute: 300, PaymentsPerMinute: 60, IPAllowlist: []string{"203.0.113.7", "198.51.100.0/24"},
		DisplayName: "Almaty Books", StatementName: "ALMATY BOOKS", PaymentLifetimeSeconds: 3600,
		MethodsDisabled: []string{payd.MethodSBP}, AuthorizeRequestWebhook: true, AuthorizeRequestDefaultAllow: true,
		Tariffs: []payd.Tariff{{Method: payd.MethodBankCard, Currency: money.RUB, PercentBps: 250, Fixed: 1000, Min: 500,
			HoldDays: 3, NoFeeReturn: true}},
		Limits: payd.PortfolioLimits{DailyTurnover: map[money.Currency]int64{money.RUB: 100_000_00},
			MonthlyTurnover: map[money.Currency]int64{money.RUB: 2_000_000_00}, PaymentsPerMinute: 30,
			AverageTicket: map[money.Currency]int64{money.KZT: 50_000_00}},
		HoldDays:              map[string]int{payd.MethodBankCard: 5},
		Ranges:                map[string]map[money.Currency]payd.Range{payd.MethodBankCard: {money.RUB: {Min: 10_00, Max: 50_000_00}}},
		Reserve:               []payd.ReserveRule{{Currency: money.RUB, PercentBps: 500, Days: 90}},
		RefundBeyondAvailable: true,
		DisputeFees:           []payd.DisputeFee{{Currency: money.RUB, BankFine: 1500_00, ServiceFee: 500_00}},
		PayoutFees:            []payd.PayoutFee{{Currency: money.RUB, PercentBps: 40, Fixed: 10_00, Min: 20_00, Max: 900_00}},
		PayoutRanges:          map[money.Currency]payd.Range{money.RUB: {Min: 100_00, Max: 1_000_000_00}},
		EmbedOrigins:          []string{"https://shop.example.com"},
		TimeZone:              "Asia/Almaty",
	}
}

func fullShop() *payd.Shop {
	return &payd.Shop{ID: "shp_01J0000000000000000000000A", MerchantID: "mer_01J0000000000000000000000A", Region: payd.RegionKZ,
		Name: "Almaty", DefaultCurrency: money.KZT, ActivatedAt: fixTime(time.Hour), Blocked: true, PaymentsSuspended: true,
		Settings: fullSettings(), CreatedAt: fixAt}
}

func fullKey() *payd.APIKey {
	return &payd.APIKey{ID: "key_01J0000000000000000000000A", ShopID: "shp_01J0000000000000000000000A", Mode: payd.ModeLive,
		Hint: "live_kz_…Ab3d", Hash: []byte{1, 2, 3}, CreatedAt: fixAt, ExpiresAt: fixTime(24 * time.Hour),
		RevokedAt: fixTime(2 * time.Hour), LastUsedAt: fixTime(time.Minute)}
}

// fullPayment carries a checkout token's hash too, which the operator
// never sees: paymentView leaves it out.
func fullPayment() *payd.Payment {
	return &payd.Payment{ID: "pay_01J0000000000000000000000A", ShopID: "shp_01J0000000000000000000000A",
		MerchantID: "mer_01J0000000000000000000000A", Region: payd.RegionRU, Test: true, Status: payd.PaymentSucceeded,
		Amount: money.New(1500_00, money.RUB), OrderID: "order-1", CreatedAt: fixAt,
		Description: "Two books", Capture: true, Metadata: map[string]string{"cart": "42"},
		Customer: &payd.Customer{Email: "a@example.com", Phone: "+79990000000", FullName: "A B", TaxID: "770000000000", IP: "203.0.113.9"},
		ClientIP: "203.0.113.9", MethodType: payd.MethodBankCard,
		ConfirmationType: "redirect", ReturnURL: "https://shop.example.com/back", Locale: "ru", ConfirmationData: "qr-data",
		CheckoutTokenHash: []byte{1, 2, 3}, CheckoutUsed: true, EmbedOrigin: "https://shop.example.com",
		MerchantDisplayName: "Acme", StatementDescriptor: "ACME",
		CapturedAmount: 1500_00, RefundedAmount: 100_00, ChargedBackAmount: 200_00, PendingRefundsAmount: 50_00,
		DisputedAmount: 300_00, FeeAmount: 42_00, FeeFixed: true, FeeRefundedAmount: 2_80, PendingReleased: true,
		ExpiresAt: fixLater, AuthorizedAt: fixTime(time.Minute), CapturedAt: fixTime(2 * time.Minute),
		CanceledAt: fixTime(3 * time.Minute), HoldExpiresAt: fixTime(4 * time.Minute),
		Cancellation: &payd.CancellationDetails{Party: "payment_network", Reason: "insufficient_funds", ProviderCode: "51"},
		Authorization: &payd.AuthorizationDetails{RRN: "123456789012", AuthCode: "A1B2C3",
			ThreeDSecure: &payd.ThreeDSecure{Applied: true, ChallengeCompleted: true}},
		PaymentMethod: &payd.PaymentMethodData{Type: payd.MethodBankCard, Saved: true, ID: "pm_1",
			Card: &payd.CardData{First6: "220000", Last4: "0004", Brand: "mir", IssuerCountry: "RU", IssuerName: "Bank"},
			SBP:  &payd.SBPData{BankName: "Bank"}},
		Provider: "acquirer", ProviderPaymentID: "prv-1",
		Attempts: []payd.Attempt{{Provider: "acquirer", ProviderPaymentID: "prv-1", Method: payd.MethodBankCard,
			Result: "succeeded", At: fixAt}},
		Precheck: &payd.Precheck{EventID: "evt_01J0000000000000000000000A", AskedAt: fixAt, Decision: payd.PrecheckAllow,
			By: "webhook", Reason: "known buyer", DecidedAt: fixTime(time.Second)},
		LinkID: "lnk_01J0000000000000000000000A",
	}
}

func fullProviderInfo() payd.ProviderInfo {
	return payd.ProviderInfo{Name: "acquirer", Live: true, Payouts: true}
}

func fullProviderRoute() *payd.ProviderRoute {
	return &payd.ProviderRoute{Region: payd.RegionRU, Method: payd.MethodBankCard, Currency: money.RUB,
		Providers: []string{"acquirer", "backup"}, UpdatedAt: fixAt}
}

func fullDiscrepancy() *payd.Discrepancy {
	return &payd.Discrepancy{ID: "dsc_01J0000000000000000000000A", PaymentID: "pay_01J0000000000000000000000A",
		Provider: "acquirer", NotificationID: "ntf-1", Kind: "late_notification", ObjectStatus: "canceled",
		Detail: "succeeded after expiry", CreatedAt: fixAt, ProviderPaymentID: "prv-1"}
}

func fullDeliveryAttempt() *payd.DeliveryAttempt {
	return &payd.DeliveryAttempt{ID: "att_01J0000000000000000000000A", DeliveryID: "dlv_01J0000000000000000000000A",
		EventID: "evt_01J0000000000000000000000A", EndpointID: "whe_01J0000000000000000000000A",
		URL: "https://shop.example.com/hook", At: fixAt, StatusCode: 502, DurationMS: 120, ResponseBody: "bad gateway",
		Error: "HTTP 502 Bad Gateway", RequestHeaders: map[string]string{"Payd-Signature": "t=1,v1=ab"}}
}

func fullSettlement() *payd.Settlement {
	return &payd.Settlement{ID: "stl_01J0000000000000000000000A", MerchantID: "mer_01J0000000000000000000000A", Test: true,
		Currency: money.RUB, PeriodFrom: "2026-02-27", PeriodTo: "2026-02-28", Status: payd.SettlementPaid,
		Gross: 1, Fees: 2, Refunds: 3, ReserveHeld: 4, ReserveReleased: 5, DepositWithheld: 6, Chargebacks: 7, BankFines: 8,
		ChargebackFees: 9, DisputesHeld: 10, DisputesReleased: 11, PayoutsHeld: 12, PayoutsReleased: 13, Payouts: 14,
		PayoutFees: 15, Net: -16, SettlementDelayDays: 1, Entries: 17, PaidAt: fixTime(time.Hour), CreatedAt: fixAt}
}

func fullSettlementStatus() *payd.SettlementStatus {
	return &payd.SettlementStatus{PayoutsFrozen: true, FrozenReason: "manual_review", FrozenAt: fixTime(time.Hour),
		UnfrozenAt: fixTime(2 * time.Hour), SettlementDelayDays: 3}
}

func fullDispute() *payd.Dispute {
	return &payd.Dispute{ID: "dsp_01J0000000000000000000000A", ShopID: "shp_01J0000000000000000000000A",
		MerchantID: "mer_01J0000000000000000000000A", PaymentID: "pay_01J0000000000000000000000A", Test: true,
		Kind: payd.DisputeChargeback, Status: payd.DisputeLost, Amount: money.New(300_00, money.RUB), OrderID: "order-1",
		BankFine: 1500_00, ServiceFee: 500_00, ReasonCode: "4837", EvidenceDeadlineAt: fixLater,
		Evidence: []payd.DisputeEvidence{{FileID: "evf_01J0000000000000000000000A", FileName: "receipt.pdf",
			ContentType: "application/pdf", SizeBytes: 2048, UploadedAt: fixAt}},
		Comment: "delivered", Resolution: "bank ruled", Provider: "acquirer", ProviderDisputeID: "prv-d-1",
		Held:        []payd.HoldPart{{Bucket: ledger.Reserve, Sub: "pay_01J0000000000000000000000A", Amount: 300_00}},
		Charged:     []payd.HoldPart{{Bucket: ledger.Available, Sub: "x", Amount: 2000_00}},
		FeeReturned: 12_00, CreatedAt: fixAt, SubmittedAt: fixTime(time.Hour), EvidenceSentAt: fixTime(2 * time.Hour),
		EvidenceReference: "ref-1", ClosedAt: fixTime(3 * time.Hour)}
}

func fullUser() *payd.User {
	return &payd.User{ID: "usr_01J0000000000000000000000A", MerchantID: "mer_01J0000000000000000000000A",
		Email: "staff@example.com", Role: payd.RoleSupport, HasPassword: true, TOTPEnabled: true, CreatedAt: fixAt,
		DisabledAt: fixTime(time.Hour)}
}

func fullAuditEntry() *payd.AuditEntry {
	return &payd.AuditEntry{ID: "aud_01J0000000000000000000000A", MerchantID: "mer_01J0000000000000000000000A",
		ShopID: "shp_01J0000000000000000000000A", Mode: payd.ModeTest, UserID: "usr_01J0000000000000000000000A",
		UserEmail: "staff@example.com", Action: payd.AuditCapturePayment, ObjectID: "pay_01J0000000000000000000000A",
		Detail: "1500.00 RUB", Addr: "203.0.113.9", At: fixAt}
}

func fullLedgerEntry() *ledger.Entry {
	return &ledger.Entry{ID: "lge_01J0000000000000000000000A", At: fixAt, Kind: ledger.KindPaymentCaptured,
		RefType: "payment", RefID: "pay_01J0000000000000000000000A",
		Postings: []ledger.Posting{
			{Account: ledger.Account{Owner: "mer_01J0000000000000000000000A", Test: true, Currency: money.RUB,
				Bucket: ledger.Pending, Sub: "pay_01J0000000000000000000000A"}, Amount: 1458_00},
		}}
}

// TestFixturesAreFull fails when a field of a domain value the operator
// API answers with is left unset in its fixture, so that a field added to
// the domain shows in the goldens or is decided not to.
func TestFixturesAreFull(t *testing.T) {
	for _, v := range []any{fullMerchant(), fullShop(), fullKey(), fullPayment(), fullProviderInfo(), fullProviderRoute(),
		fullDiscrepancy(), fullDeliveryAttempt(), fullSettlement(), fullSettlementStatus(), fullDispute(), fullUser(),
		fullAuditEntry(), fullLedgerEntry()} {
		checkSet(t, reflect.ValueOf(v), reflect.TypeOf(v).String())
	}
}

func checkSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			t.Errorf("%s is unset", path)
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			if v.Interface().(time.Time).IsZero() {
				t.Errorf("%s is unset", path)
			}
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			checkSet(t, v.Field(i), path+"."+f.Name)
		}
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			t.Errorf("%s is empty", path)
			return
		}
		if v.Kind() == reflect.Slice {
			for i := range v.Len() {
				checkSet(t, v.Index(i), path+"[]")
			}
		}
	default:
		if v.IsZero() {
			t.Errorf("%s is unset", path)
		}
	}
}
