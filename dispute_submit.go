package payd

import (
	"context"
	"fmt"
	"io"
)

// DisputeResponder is a provider that takes a merchant's evidence for a
// dispute it raised (the representment). A provider without it gets the
// evidence by hand: the operator downloads the files and records `submit`.
type DisputeResponder interface {
	// SubmitDisputeEvidence sends the files and the merchant's comment to
	// the bank and returns the bank's reference of the submission. It is
	// called outside any store transaction (files are up to 100 MiB in
	// all) and may be called again for the same dispute after a failure:
	// a provider deduplicates on ProviderDisputeID.
	SubmitDisputeEvidence(ctx context.Context, sub *DisputeSubmission) (reference string, err error)
}

// DisputeSubmission is what goes to the bank when a dispute is submitted.
type DisputeSubmission struct {
	ProviderDisputeID string
	ProviderPaymentID string
	Comment           string
	Files             []DisputeEvidence
	// Copy writes the bytes of one of Files to w, streaming them from
	// storage a chunk at a time.
	Copy func(ctx context.Context, fileID string, w io.Writer) error
}

// DisputeSubmitArgs sends a submitted dispute's evidence to its bank. The
// job is enqueued with the transition to submitted, so the evidence goes
// out exactly when the submission committed, and is retried until the
// bank takes it.
type DisputeSubmitArgs struct {
	DisputeID string `json:"dispute_id"`
}

// Kind names the job.
func (DisputeSubmitArgs) Kind() string { return "dispute_submit" }

// responderOf is the provider that takes a dispute's evidence, if any. A
// dispute the bank does not know by a name of its own (one an operator
// opened without provider_dispute_id) cannot be answered through it.
func (s *Service) responderOf(d *Dispute) (DisputeResponder, bool) {
	if d.Provider == "" || d.ProviderDisputeID == "" {
		return nil, false
	}
	r, ok := s.providers[d.Provider].(DisputeResponder)
	return r, ok
}

// SendDisputeEvidence sends a submitted dispute's evidence to its bank and
// records the bank's reference and the moment on the dispute (operators
// see both). A dispute already sent, or one the bank decided meanwhile
// (the bank needs nothing more), is left alone.
func (s *Service) SendDisputeEvidence(ctx context.Context, id string) error {
	var d *Dispute
	var pay *Payment
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if d, err = tx.DisputeGet(ctx, id); err != nil {
			return err
		}
		pay, err = tx.PaymentGet(ctx, d.PaymentID)
		return err
	})
	if err != nil {
		return fmt.Errorf("send evidence of %s: %w", id, err)
	}
	r, ok := s.responderOf(d)
	if !ok || d.EvidenceSentAt != nil || d.Status != DisputeSubmitted {
		return nil
	}
	sub := &DisputeSubmission{ProviderDisputeID: d.ProviderDisputeID, ProviderPaymentID: pay.ProviderPaymentID,
		Comment: d.Comment, Files: d.Evidence,
		Copy: func(ctx context.Context, fileID string, w io.Writer) error {
			f, err := s.EvidenceFileOf(ctx, d.ID, fileID)
			if err != nil {
				return err
			}
			return s.CopyEvidence(ctx, f, w)
		}}
	ref, err := r.SubmitDisputeEvidence(ctx, sub)
	if err != nil {
		return fmt.Errorf("send evidence of %s to %s: %w", id, d.Provider, err)
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		d, err := tx.DisputeGetForUpdate(ctx, id)
		if err != nil || d.EvidenceSentAt != nil {
			return err
		}
		now := s.clock.Now()
		d.EvidenceSentAt, d.EvidenceReference = &now, ref
		return tx.DisputeUpdate(ctx, d)
	})
}
