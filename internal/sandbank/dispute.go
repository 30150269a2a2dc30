package sandbank

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/paydhq/payd"
)

// SimulateDispute sends the bank's next word on a sandbox dispute — it asks
// for evidence, or decides the dispute — as a signed notification, after
// delay, through the same path a live bank's notification takes. The bank
// knows the dispute by its provider dispute id.
func (b *Bank) SimulateDispute(ctx context.Context, tx payd.Tx, d *payd.Dispute, kind payd.NotificationKind, delay time.Duration) error {
	pay, err := tx.PaymentGet(ctx, d.PaymentID)
	if err != nil {
		return err
	}
	n := payd.Notification{Kind: kind, Dispute: &payd.DisputeNotice{ID: d.ProviderDisputeID}}
	switch kind {
	case payd.NotifyDisputeWon:
		n.Dispute.Resolution = "the issuer accepted the merchant's case (sandbox)"
	case payd.NotifyDisputeLost:
		n.Dispute.Resolution = "the issuer upheld the cardholder's claim (sandbox)"
	}
	_, err = b.send(ctx, tx, pay.ProviderPaymentID, n, b.clock.Now().Add(delay))
	return err
}

var _ payd.DisputeSimulator = (*Bank)(nil)

// SubmitDisputeEvidence takes a sandbox dispute's evidence as a bank's
// representment desk would: it reads every file whole and checks that it
// has the size the merchant declared, so a stored file that went missing
// or short fails the sending job (retried) instead of being reported sent.
// The reference names the submission; the bank decides the dispute only
// when told (simulate, operator), as in live.
func (b *Bank) SubmitDisputeEvidence(ctx context.Context, sub *payd.DisputeSubmission) (string, error) {
	if sub.ProviderDisputeID == "" || len(sub.Files) == 0 {
		return "", fmt.Errorf("sandbox bank: a submission needs the dispute and at least one file")
	}
	for _, f := range sub.Files {
		var n countWriter
		if err := sub.Copy(ctx, f.FileID, &n); err != nil {
			return "", fmt.Errorf("sandbox bank: read %s: %w", f.FileID, err)
		}
		if int64(n) != f.SizeBytes {
			return "", fmt.Errorf("sandbox bank: %s has %d bytes, %d declared", f.FileID, n, f.SizeBytes)
		}
	}
	return "rpm_" + ulid.MustNew(ulid.Timestamp(b.clock.Now()), rand.Reader).String(), nil
}

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

var _ payd.DisputeResponder = (*Bank)(nil)
