package sandbank

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/paydhq/payd"
)

// SimulateDispute sends the bank's next word on a sandbox dispute — it asks
// for evidence, or decides the dispute — as a signed notification, after
// delay, through the same path a live bank's notification takes. The bank
// knows the dispute by its provider dispute id.
func (b *Bank) SimulateDispute(ctx context.Context, tx payd.Tx, d *payd.Dispute, kind string, delay time.Duration) error {
	pay, err := tx.PaymentGet(ctx, d.PaymentID)
	if err != nil {
		return err
	}
	now := b.clock.Now()
	n := payd.Notification{ID: "ntf_" + ulid.MustNew(ulid.Timestamp(now), rand.Reader).String(), Kind: kind,
		ProviderPaymentID: pay.ProviderPaymentID, Dispute: &payd.DisputeNotice{ID: d.ProviderDisputeID}}
	switch kind {
	case payd.NotifyDisputeWon:
		n.Dispute.Resolution = "the issuer accepted the merchant's case (sandbox)"
	case payd.NotifyDisputeLost:
		n.Dispute.Resolution = "the issuer upheld the cardholder's claim (sandbox)"
	}
	payload, err := json.Marshal(envelope{Provider: b.name, SentAt: now, Event: n})
	if err != nil {
		return err
	}
	return b.jobs.Enqueue(ctx, tx, payd.ProviderNotificationArgs{Provider: b.name, Payload: payload, Signature: b.sign(payload)}, now.Add(delay))
}

var _ payd.DisputeSimulator = (*Bank)(nil)
