package payd_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

// roleCase is one change a dashboard user may try, by the action whose
// permission it needs.
type roleCase struct {
	action payd.AuditAction
	do     func(ctx context.Context, p *payd.Principal, idem payd.Idempotency) error
}

// TestEveryChangeChecksItsActorsRole tries every change of a shop's data
// and of a merchant's users as a user of each role, through Service: the
// domain, not an adapter, refuses the roles actionPerms does not give the
// action, with forbidden, writing nothing; the others are let through to
// the operation's own rules (its answer may still be not_found: the ids are
// of nothing).
func TestEveryChangeChecksItsActorsRole(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		ctx := t.Context()
		store, err := sqlstore.Open(ctx, be.DatabaseURL(t), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		if _, err := store.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		clock, ids := &payd.TestClock{}, payd.NewIDGen()
		svc := payd.NewService(payd.Config{Store: store, Clock: clock, IDs: ids, Stage: payd.StageM5, PublicURL: "https://payd.test",
			WebhookAllowHosts: []string{"hooks.example.test"}})
		acc := account.New(account.Config{Store: store, Clock: clock, IDs: ids, PublicURL: "https://payd.test", SetupPath: "/dashboard/setup/"})
		m, err := svc.CreateMerchant(ctx, payd.MerchantCreate{Name: "M"})
		if err != nil {
			t.Fatal(err)
		}
		shop, err := svc.CreateShop(ctx, payd.ShopCreate{MerchantID: m.ID, Region: payd.RegionRU, Name: "S", DefaultCurrency: money.RUB})
		if err != nil {
			t.Fatal(err)
		}
		users := map[payd.Role]*payd.User{}
		for _, r := range []payd.Role{payd.RoleAdmin, payd.RoleSupport, payd.RoleDeveloper, payd.RoleViewer} {
			if users[r], _, err = acc.CreateUser(ctx, nil, m.ID, string(r)+"@example.test", r); err != nil {
				t.Fatal(err)
			}
		}
		cases := roleCases(svc, acc, m.ID, func(email string) string {
			u, _, err := acc.CreateUser(ctx, nil, m.ID, email, payd.RoleViewer)
			if err != nil {
				t.Fatal(err)
			}
			return u.ID
		})
		// entries counts what userID wrote to the audit log (the cases'
		// own set-up writes the operator's entries).
		entries := func(userID string) int {
			t.Helper()
			page, err := svc.ListAudit(ctx, m.ID, payd.AuditListParams{ListParams: payd.ListParams{Limit: 100}})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range page.Items {
				if e.UserID == userID {
					n++
				}
			}
			return n
		}
		n := 0
		for _, c := range cases {
			for role, u := range users {
				n++
				p := &payd.Principal{Shop: shop, Mode: payd.ModeTest, Actor: &payd.Actor{UserID: u.ID, Email: u.Email, Addr: "192.0.2.7"}}
				idem := payd.Idempotency{Key: fmt.Sprintf("k%d", n), Hash: []byte{byte(n)}}
				before := entries(u.ID)
				err := c.do(ctx, p, idem)
				refused := payd.ErrorCodeOf(err) == payd.CodeForbidden
				if allowed := role.Can(c.action.Permission()); refused == allowed {
					t.Errorf("%s as %s: %v; the role allows it: %v", c.action, role, err, allowed)
				}
				if refused && entries(u.ID) != before {
					t.Errorf("%s as %s: refused, yet the audit log grew", c.action, role)
				}
			}
		}

		// A disabled user, and a user of another merchant, may do nothing,
		// whatever their role.
		other, err := svc.CreateMerchant(ctx, payd.MerchantCreate{Name: "Other"})
		if err != nil {
			t.Fatal(err)
		}
		stranger, _, err := acc.CreateUser(ctx, nil, other.ID, "stranger@example.test", payd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		gone, _, err := acc.CreateUser(ctx, nil, m.ID, "gone@example.test", payd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := acc.DisableUser(ctx, nil, m.ID, gone.ID); err != nil {
			t.Fatal(err)
		}
		for _, u := range []*payd.User{stranger, gone} {
			p := &payd.Principal{Shop: shop, Mode: payd.ModeTest, Actor: &payd.Actor{UserID: u.ID, Email: u.Email}}
			for _, c := range cases {
				n++
				if err := c.do(ctx, p, payd.Idempotency{Key: fmt.Sprintf("k%d", n), Hash: []byte{1}}); payd.ErrorCodeOf(err) != payd.CodeForbidden {
					t.Errorf("%s by %s: %v, want forbidden", c.action, u.Email, err)
				}
			}
		}
	})
}

// roleCases are the changes, each with input its operation accepts up to
// the objects it names: of shops' data through svc, of users through acc.
// newUser makes a user for a case to act on, so that one role's change (a
// disable) leaves the next role something to change.
func roleCases(svc *payd.Service, acc *account.Service, merchantID string, newUser func(email string) string) []roleCase {
	ids := payd.NewIDGen()
	now := time.Now()
	pay, dsp, link, whe := ids.New(payd.PrefixPayment, now), ids.New(payd.PrefixDispute, now), ids.New(payd.PrefixPaymentLink, now), ids.New(payd.PrefixWebhookEndpoint, now)
	amount := money.New(1000, money.RUB)
	n := 0
	target := func() string { n++; return newUser(fmt.Sprintf("target%d@example.test", n)) }
	actor := func(p *payd.Principal) *payd.Actor { return p.Actor }
	type P = *payd.Principal
	type I = payd.Idempotency
	return []roleCase{
		{payd.AuditCreatePayment, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CreatePayment(ctx, p, idem, payd.PaymentCreate{Amount: amount, OrderID: idem.Key, Description: "Order", ConfirmationType: "redirect", ReturnURL: "https://shop.example.test/back"})
			return err
		}},
		{payd.AuditCapturePayment, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CapturePayment(ctx, p, idem, pay, nil)
			return err
		}},
		{payd.AuditCancelPayment, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CancelPayment(ctx, p, idem, pay)
			return err
		}},
		{payd.AuditCreateRefund, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CreateRefund(ctx, p, idem, payd.RefundCreate{PaymentID: pay, Amount: amount})
			return err
		}},
		{payd.AuditCreateEvidence, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CreateEvidenceUpload(ctx, p, idem, dsp, payd.EvidenceUploadCreate{FileName: "receipt.pdf", ContentType: "application/pdf", SizeBytes: 1000})
			return err
		}},
		{payd.AuditAttachEvidence, func(ctx context.Context, p P, idem I) error {
			_, err := svc.AttachEvidence(ctx, p, idem, dsp, []string{ids.New(payd.PrefixEvidence, now)}, "")
			return err
		}},
		{payd.AuditCreatePaymentLink, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CreatePaymentLink(ctx, p, idem, payd.PaymentLinkCreate{Amount: &amount, Description: "Tea"})
			return err
		}},
		{payd.AuditDeactivateLink, func(ctx context.Context, p P, idem I) error {
			_, err := svc.DeactivatePaymentLink(ctx, p, idem, link)
			return err
		}},
		{payd.AuditCreatePayout, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CreatePayout(ctx, p, idem, payd.PayoutCreate{Amount: amount, Description: "Payout",
				Destination: payd.PayoutDestination{Type: payd.DestinationSBP, Phone: "+79001234567", BankID: "100000000004", Given: []string{"phone", "bank_id"}}})
			return err
		}},
		{payd.AuditCreateWebhook, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CreateWebhookEndpoint(ctx, p, idem, payd.WebhookEndpointCreate{URL: "https://hooks.example.test/h", Events: []payd.EventType{payd.EventPaymentSucceeded}})
			return err
		}},
		{payd.AuditUpdateWebhook, func(ctx context.Context, p P, idem I) error {
			url := "https://hooks.example.test/other"
			_, err := svc.UpdateWebhookEndpoint(ctx, p, idem, whe, payd.WebhookEndpointUpdate{URL: &url})
			return err
		}},
		{payd.AuditRotateWebhookSecret, func(ctx context.Context, p P, idem I) error {
			_, err := svc.UpdateWebhookEndpoint(ctx, p, idem, whe, payd.WebhookEndpointUpdate{RotateSecret: true})
			return err
		}},
		{payd.AuditDeleteWebhook, func(ctx context.Context, p P, _ I) error {
			return svc.DeleteWebhookEndpoint(ctx, p, whe)
		}},
		{payd.AuditSendTestEvent, func(ctx context.Context, p P, idem I) error {
			_, err := svc.SendTestEvent(ctx, p, idem, whe)
			return err
		}},
		{payd.AuditResendEvent, func(ctx context.Context, p P, idem I) error {
			_, err := svc.ResendEvent(ctx, p, idem, ids.New(payd.PrefixEvent, now))
			return err
		}},
		{payd.AuditRotateKey, func(ctx context.Context, p P, _ I) error {
			_, _, err := svc.RotateKey(ctx, p, "key_none")
			return err
		}},
		{payd.AuditExpireKey, func(ctx context.Context, p P, _ I) error {
			_, err := svc.ExpireKey(ctx, p, "key_none")
			return err
		}},
		{payd.AuditSetEmbedOrigins, func(ctx context.Context, p P, _ I) error {
			_, err := svc.SetEmbedOrigins(ctx, p, []string{"https://shop.example.test"})
			return err
		}},
		{payd.AuditSimulateOutcome, func(ctx context.Context, p P, idem I) error {
			_, err := svc.SimulateOutcome(ctx, p, idem, pay, "expire", 0)
			return err
		}},
		{payd.AuditCreateTestDispute, func(ctx context.Context, p P, idem I) error {
			_, err := svc.CreateTestDispute(ctx, p, idem, pay, payd.TestDisputeCreate{DisputeOpen: payd.DisputeOpen{Kind: payd.DisputeChargeback, ReasonCode: "13.1"}})
			return err
		}},
		{payd.AuditSimulateDispute, func(ctx context.Context, p P, idem I) error {
			_, err := svc.SimulateDispute(ctx, p, idem, dsp, "won", 0)
			return err
		}},
		{payd.AuditAdvanceTestClock, func(ctx context.Context, p P, _ I) error {
			// From the clock's lead as it is, so that an allowed role's
			// move is made, not taken for one made already.
			var from time.Duration
			if c, ok := svc.Clock().(*payd.TestClock); ok {
				from = c.Lead()
			}
			_, _, err := svc.AdvanceTestClock(ctx, p, payd.TestClockAdvance{By: time.Second, From: from})
			return err
		}},
		{payd.AuditResetSandbox, func(ctx context.Context, p P, _ I) error {
			_, err := svc.ResetSandbox(ctx, p)
			return err
		}},
		{payd.AuditInviteUser, func(ctx context.Context, p P, _ I) error {
			n++
			_, _, err := acc.CreateUser(ctx, actor(p), merchantID, fmt.Sprintf("invited%d@example.test", n), payd.RoleViewer)
			return err
		}},
		{payd.AuditSetupLink, func(ctx context.Context, p P, _ I) error {
			_, err := acc.NewSetupToken(ctx, actor(p), merchantID, target())
			return err
		}},
		{payd.AuditChangeRole, func(ctx context.Context, p P, _ I) error {
			_, err := acc.ChangeUserRole(ctx, actor(p), merchantID, target(), payd.RoleSupport)
			return err
		}},
		{payd.AuditDisableUser, func(ctx context.Context, p P, _ I) error {
			_, err := acc.DisableUser(ctx, actor(p), merchantID, target())
			return err
		}},
		{payd.AuditSecondFactorPolicy, func(ctx context.Context, p P, _ I) error {
			_, err := acc.SetSecondFactorPolicy(ctx, actor(p), merchantID, false)
			return err
		}},
		{payd.AuditSignOutEverywhere, func(ctx context.Context, p P, _ I) error {
			return acc.SignOutEverywhere(ctx, actor(p), target())
		}},
		{payd.AuditDisableTOTP, func(ctx context.Context, p P, _ I) error {
			_, err := acc.DisableTOTP(ctx, actor(p), target())
			return err
		}},
	}
}
