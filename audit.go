package payd

import (
	"context"
	"encoding/json"
	"time"
)

// AuditAction names what an audit entry records. The idempotent
// operations record their own names ("create refund", "capture payment");
// the other changes made through the dashboard have these.
type AuditAction string

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
	AuditSignOutEverywhere  AuditAction = "sign out everywhere"
	AuditRotateKey          AuditAction = "rotate key"
	AuditSetEmbedOrigins    AuditAction = "set embed origins"
	AuditDeleteWebhook      AuditAction = "delete webhook endpoint"
)

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
	ObjectID string    `json:"object_id,omitempty"`
	Addr     string    `json:"addr,omitempty"`
	At       time.Time `json:"at"`
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
	now := s.clock.Now()
	e := &AuditEntry{ID: s.ids.New(PrefixAudit, now), MerchantID: merchantID, ShopID: shopID, Mode: mode,
		Action: action, ObjectID: objectID, At: now}
	if actor != nil {
		e.UserID, e.UserEmail, e.Addr = actor.UserID, actor.Email, actor.Addr
	}
	return tx.AuditInsert(ctx, e)
}

// auditIdempotent records an idempotent operation a dashboard user did,
// naming the object of its answer when the answer has an id.
func (s *Service) auditIdempotent(ctx context.Context, tx Tx, p *Principal, op string, body []byte) error {
	var obj struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(body, &obj) // an answer without an id names no object
	return s.auditShop(ctx, tx, p.Actor, p.Shop.MerchantID, p.Shop.ID, p.Mode, AuditAction(op), obj.ID)
}

// ListAudit pages a merchant's audit log, newest first.
func (s *Service) ListAudit(ctx context.Context, merchantID string, p AuditListParams) (Page[*AuditEntry], error) {
	return read(ctx, s, func(tx Tx) (Page[*AuditEntry], error) {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return Page[*AuditEntry]{}, notFoundAs(err, "merchant")
		}
		p.MerchantID = merchantID
		return tx.AuditList(ctx, &p)
	})
}
