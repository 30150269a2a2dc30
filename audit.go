package payd

import (
	"context"
	"time"
)

// AuditAction names a change a dashboard user can make, and what its
// audit entry records. Each change of a shop's data needs the permission
// actionPerms gives it.
type AuditAction string

// The idempotent operations: each is also the operation's name in errors.
const (
	AuditCreatePayment     AuditAction = "create payment"
	AuditCapturePayment    AuditAction = "capture payment"
	AuditCancelPayment     AuditAction = "cancel payment"
	AuditCreateRefund      AuditAction = "create refund"
	AuditCreateEvidence    AuditAction = "create evidence upload"
	AuditAttachEvidence    AuditAction = "attach evidence"
	AuditCreatePaymentLink AuditAction = "create payment link"
	AuditDeactivateLink    AuditAction = "deactivate payment link"
	AuditCreatePayout      AuditAction = "create payout"
	AuditCreateWebhook     AuditAction = "create webhook endpoint"
	AuditUpdateWebhook     AuditAction = "update webhook endpoint"
	AuditSendTestEvent     AuditAction = "send test event"
	AuditResendEvent       AuditAction = "resend event"
	AuditSimulateOutcome   AuditAction = "simulate outcome"
	AuditCreateTestDispute AuditAction = "create test dispute"
	AuditSimulateDispute   AuditAction = "simulate dispute"
)

// Actions of the changes that are not idempotent operations.
const (
	AuditInviteUser         AuditAction = "invite user"
	AuditSetupLink          AuditAction = "issue setup link"
	AuditSetPassword        AuditAction = "set password"
	AuditChangeRole         AuditAction = "change user role"
	AuditDisableUser        AuditAction = "disable user"
	AuditEnableTOTP         AuditAction = "enable second factor"
	AuditDisableTOTP        AuditAction = "disable second factor"
	AuditSecondFactorPolicy AuditAction = "set second factor policy"
	AuditSignIn             AuditAction = "sign in"
	AuditSignInFailed       AuditAction = "failed sign in"
	AuditSecondFactorFailed AuditAction = "failed second factor"
	AuditSecondFactorEnded  AuditAction = "end sign in after failed codes"
	AuditAccountLocked      AuditAction = "lock account after failed sign-ins"
	AuditSignOut            AuditAction = "sign out"
	AuditSignOutEverywhere  AuditAction = "sign out everywhere"
	AuditRotateKey          AuditAction = "rotate key"
	AuditExpireKey          AuditAction = "expire key"
	AuditSetEmbedOrigins    AuditAction = "set embed origins"
	AuditDeleteWebhook      AuditAction = "delete webhook endpoint"
	AuditAdvanceTestClock   AuditAction = "advance test clock"
	AuditResetSandbox       AuditAction = "reset sandbox"
)

// AuditObjectTestClock is the object an entry of AuditAdvanceTestClock
// names: the clock is the instance's, no shop's object.
const AuditObjectTestClock = "test_clock"

// AuditEntry records one change made through the dashboard (or by the
// operator to a merchant's users): who, when, what, from where. Entries
// are only ever appended.
type AuditEntry struct {
	ID         string `json:"id"`
	MerchantID string `json:"merchant_id"`
	// ShopID and Mode are those of the change's shop, "" when it concerns
	// no shop (users, the merchant's policy).
	ShopID string `json:"shop_id,omitempty"`
	Mode   Mode   `json:"mode,omitempty"`
	// UserID and UserEmail are the actor's; both "" for the operator.
	UserID    string      `json:"user_id,omitempty"`
	UserEmail string      `json:"user_email,omitempty"`
	Action    AuditAction `json:"action"`
	// ObjectID is the object made or changed, when there is one.
	ObjectID string `json:"object_id,omitempty"`
	// Detail is what the action and its object leave unsaid: the outcome
	// simulated, how far the test clock moved and to what time.
	Detail string    `json:"detail,omitempty"`
	Addr   string    `json:"addr,omitempty"`
	At     time.Time `json:"at"`
}

// AuditListParams pages a merchant's audit log, newest first.
type AuditListParams struct {
	ListParams
	MerchantID string
}

// audit appends an entry of a merchant-level change to tx.
func (s *Service) audit(ctx context.Context, tx Tx, actor *Actor, merchantID string, action AuditAction, objectID string) error {
	return s.auditShop(ctx, tx, actor, merchantID, "", "", action, objectID)
}

func (s *Service) auditShop(ctx context.Context, tx Tx, actor *Actor, merchantID, shopID string, mode Mode, action AuditAction, objectID string) error {
	return s.auditDetail(ctx, tx, actor, merchantID, shopID, mode, action, objectID, "")
}

// auditDetail is auditShop with the entry's detail.
func (s *Service) auditDetail(ctx context.Context, tx Tx, actor *Actor, merchantID, shopID string, mode Mode, action AuditAction, objectID, detail string) error {
	e := NewAuditEntry(s.ids, s.clock.Now(), actor, merchantID, action, objectID)
	e.ShopID, e.Mode, e.Detail = shopID, mode, detail
	return tx.AuditInsert(ctx, e)
}

// NewAuditEntry is the entry of a change of a merchant (one that concerns
// no shop) that actor (nil: the operator) made at at, with an id of ids,
// for Tx.AuditInsert in the change's own transaction. The account service
// writes its entries so, with the domain's clock and ids.
func NewAuditEntry(ids *IDGen, at time.Time, actor *Actor, merchantID string, action AuditAction, objectID string) *AuditEntry {
	e := &AuditEntry{ID: ids.NewFor(PrefixAudit, at, merchantID), MerchantID: merchantID, Action: action, ObjectID: objectID, At: at}
	if actor != nil {
		e.UserID, e.UserEmail, e.Addr = actor.UserID, actor.Email, actor.Addr
	}
	return e
}

// audited is what an idempotent effect returns in place of its answer when
// the answer does not name the object the operation acted on: a simulate
// answers 202 with no body, yet its entry names the payment or dispute
// and the outcome; a test event's answer is the event, its entry names
// the endpoint it was sent to.
type audited struct {
	answer   any
	objectID string
	detail   string
}

// auditedAnswer unwraps an effect's result: the answer to send and keep,
// and the object and detail of the audit entry when the effect named them.
func auditedAnswer(obj any) (answer any, objectID, detail string) {
	if a, ok := obj.(audited); ok {
		return a.answer, a.objectID, a.detail
	}
	return obj, "", ""
}

// auditIdempotent records an idempotent operation a dashboard user did,
// naming objectID, or else the object of its answer when the answer has
// an id.
func (s *Service) auditIdempotent(ctx context.Context, tx Tx, p *Principal, op AuditAction, body []byte, objectID, detail string) error {
	if objectID == "" {
		objectID = bodyID(body)
	}
	return s.auditDetail(ctx, tx, p.Actor, p.Shop.MerchantID, p.Shop.ID, p.Mode, op, objectID, detail)
}

// ListAudit pages a merchant's audit log, newest first.
func (s *Service) ListAudit(ctx context.Context, merchantID string, p AuditListParams) (Page[*AuditEntry], error) {
	return read(ctx, s, "list audit log", func(tx Tx) (Page[*AuditEntry], error) {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return Page[*AuditEntry]{}, notFoundAs(err, "merchant")
		}
		p.MerchantID = merchantID
		return tx.AuditList(ctx, &p)
	})
}

// AuditActionAll returns every action, for the pages that name them.
func AuditActionAll() []AuditAction {
	return []AuditAction{
		AuditCreatePayment, AuditCapturePayment, AuditCancelPayment, AuditCreateRefund, AuditCreateEvidence,
		AuditAttachEvidence, AuditCreatePaymentLink, AuditDeactivateLink, AuditCreatePayout, AuditCreateWebhook,
		AuditUpdateWebhook, AuditRotateWebhookSecret, AuditDeleteWebhook, AuditSendTestEvent, AuditResendEvent,
		AuditSimulateOutcome, AuditCreateTestDispute, AuditSimulateDispute, AuditInviteUser, AuditSetupLink,
		AuditSetPassword, AuditChangeRole, AuditDisableUser, AuditEnableTOTP, AuditDisableTOTP,
		AuditSecondFactorPolicy, AuditSignIn, AuditSignInFailed, AuditSecondFactorFailed, AuditSecondFactorEnded,
		AuditAccountLocked, AuditSignOut, AuditSignOutEverywhere, AuditRotateKey, AuditExpireKey, AuditSetEmbedOrigins,
		AuditAdvanceTestClock, AuditResetSandbox,
	}
}
