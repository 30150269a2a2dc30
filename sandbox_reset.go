package payd

import (
	"context"
	"time"
)

// SandboxResetCounts says how many rows of each kind a sandbox reset
// deleted (the contract's SandboxReset.deleted).
type SandboxResetCounts struct {
	Payments           int64 `json:"payments"`
	Refunds            int64 `json:"refunds"`
	Disputes           int64 `json:"disputes"`
	EvidenceFiles      int64 `json:"evidence_files"`
	PaymentLinks       int64 `json:"payment_links"`
	Payouts            int64 `json:"payouts"`
	Settlements        int64 `json:"settlements"`
	Events             int64 `json:"events"`
	WebhookDeliveries  int64 `json:"webhook_deliveries"`
	IdempotencyRecords int64 `json:"idempotency_records"`
	LedgerEntries      int64 `json:"ledger_entries"`
}

func (c *SandboxResetCounts) add(o SandboxResetCounts) {
	c.Payments += o.Payments
	c.Refunds += o.Refunds
	c.Disputes += o.Disputes
	c.EvidenceFiles += o.EvidenceFiles
	c.PaymentLinks += o.PaymentLinks
	c.Payouts += o.Payouts
	c.Settlements += o.Settlements
	c.Events += o.Events
	c.WebhookDeliveries += o.WebhookDeliveries
	c.IdempotencyRecords += o.IdempotencyRecords
	c.LedgerEntries += o.LedgerEntries
}

// SandboxKind is one kind of test data a reset deletes, batch by batch.
type SandboxKind string

// The kinds in the order a reset deletes them: what refers to a payment
// before the payment, so that a batch never leaves a row whose parent is
// gone while the reset is still on its way to it.
const (
	SandboxRefunds       SandboxKind = "refunds"
	SandboxEvidenceFiles SandboxKind = "evidence_files"
	SandboxDisputes      SandboxKind = "disputes"
	SandboxPayouts       SandboxKind = "payouts"
	SandboxPaymentLinks  SandboxKind = "payment_links"
	SandboxPayments      SandboxKind = "payments"
	SandboxSettlements   SandboxKind = "settlements"
	SandboxEvents        SandboxKind = "events"
	SandboxIdempotency   SandboxKind = "idempotency"
)

// SandboxKindAll returns every kind in deletion order.
func SandboxKindAll() []SandboxKind {
	return []SandboxKind{SandboxRefunds, SandboxEvidenceFiles, SandboxDisputes, SandboxPayouts,
		SandboxPaymentLinks, SandboxPayments, SandboxSettlements, SandboxEvents, SandboxIdempotency}
}

// SandboxDeleteParams asks for one batch of a reset: at most Limit rows of
// Kind of the shop's test data (of its merchant's test contour for
// settlements), with what hangs on them.
type SandboxDeleteParams struct {
	ShopID     string
	MerchantID string
	Kind       SandboxKind
	Limit      int
}

// SandboxResetLimit is how long `POST /v1/test/reset` may take to answer:
// the route lifts the server's write timeout (60 s) to it, because a
// reset of many test payments can outlast that, and an answer cut off by
// it reaches the client as a closed connection while the reset carries
// on (docs/sandbox.md, "payd sandbox reset").
const SandboxResetLimit = 15 * time.Minute

// DefaultSandboxWait bounds how long a merchant API change waits for a
// reset of its shop's sandbox; after it the change answers 503, to be
// retried.
const DefaultSandboxWait = 60 * time.Second

// ResetSandbox is `POST /test/reset`: it deletes the shop's test data and
// keeps its keys, webhook endpoints and settings. It marks the shop first,
// in a transaction that waits for every change of the shop's test data
// under way; changes that come later wait until the mark is gone (see
// idempotent), so each lands wholly before or wholly after the reset.
// Then it deletes kind by kind in batches (SandboxBatching), each its own
// transaction, and removes the mark. A reset that stopped half way
// (the process died) left the mark: the next reset of the shop finishes
// the work and removes it.
//
// One reset deletes a shop's data at a time: the latest to mark it. Each
// batch first checks, under the shop's fence, that the mark is still its
// own; a reset that finds a newer one stops there and answers once the
// newer one has removed the mark, with what it deleted itself. Two
// resets deleting side by side would each take the other's deleted rows
// for the end of a kind, and the first to end would let changes in while
// the other still deleted.
func (s *Service) ResetSandbox(ctx context.Context, p *Principal) (*SandboxResetCounts, error) {
	if !p.Test() {
		return nil, Errorf(CodeForbidden, "the sandbox reset works with test keys only")
	}
	shopID, merchantID := p.Shop.ID, p.Shop.MerchantID
	var mark time.Time
	// Setting the mark waits for every change of the shop's test data
	// under way (Tx.ShopSandboxResetMark); it takes no other lock first,
	// so that a change holding the fence never waits for it.
	err := s.store.Tx(ctx, func(tx Tx) (err error) {
		if err := s.permit(ctx, tx, p, AuditResetSandbox); err != nil {
			return err
		}
		if mark, err = tx.ShopSandboxResetMark(ctx, shopID, s.clock.Now()); err != nil {
			return err
		}
		if p.Actor == nil {
			return nil
		}
		return s.auditShop(ctx, tx, p.Actor, merchantID, shopID, p.Mode, AuditResetSandbox, shopID)
	})
	if err != nil {
		return nil, withOp("reset sandbox", err)
	}
	var total SandboxResetCounts
	began := time.Now()
	// Each kind's time, for the log line that ends the reset: an operator
	// asked why a reset was slow reads where it went.
	var kinds []any
	held := true
	for _, kind := range SandboxKindAll() {
		if s.sandboxResetStep != nil {
			s.sandboxResetStep(kind)
		}
		kindBegan := time.Now()
		var got SandboxResetCounts
		got, held, err = s.resetKind(ctx, shopID, merchantID, mark, kind)
		total.add(got)
		if err != nil {
			// The mark stays: changes keep waiting (then answer
			// 503) until a reset finishes.
			return nil, withOp("reset sandbox "+string(kind), err)
		}
		kinds = append(kinds, string(kind)+"_ms", time.Since(kindBegan).Milliseconds())
		if !held {
			break
		}
	}
	if held {
		err := s.store.Tx(ctx, func(tx Tx) (err error) {
			held, err = tx.ShopSandboxResetClear(ctx, shopID, mark)
			return err
		})
		if err != nil {
			return nil, withOp("reset sandbox", err)
		}
	}
	if !held {
		// A newer reset deletes what is left; the answer waits for it,
		// so that the data is gone when it comes.
		if err := s.awaitSandboxReset(ctx, shopID, began.Add(SandboxResetLimit)); err != nil {
			return nil, withOp("reset sandbox", err)
		}
	}
	s.log.InfoContext(ctx, "sandbox reset", append([]any{"shop", shopID, "payments", total.Payments,
		"ledger_entries", total.LedgerEntries, "events", total.Events, "taken_over", !held,
		"duration_ms", time.Since(began).Milliseconds()}, kinds...)...)
	return &total, nil
}

// resetKind deletes the shop's test data of one kind, batch by batch,
// while the shop's mark is still mark; held is false once a newer reset
// has marked the shop.
func (s *Service) resetKind(ctx context.Context, shopID, merchantID string, mark time.Time, kind SandboxKind) (total SandboxResetCounts, held bool, err error) {
	bulk := WithBulk(ctx)
	size := s.sandboxBatching.first()
	for {
		var got SandboxResetCounts
		var n int64
		var took time.Duration
		err := s.store.Tx(bulk, func(tx Tx) (err error) {
			// Timed from the writer's turn: a wait for it is
			// others' time, not the batch's.
			began := time.Now()
			defer func() { took = time.Since(began) }()
			if held, err = tx.ShopSandboxResetHeld(bulk, shopID, mark); err != nil || !held {
				return err
			}
			// The batch takes the locks of the objects it deletes
			// and the merchant's row in the order money operations
			// take them (Tx.SandboxDelete).
			got, n, err = tx.SandboxDelete(bulk, &SandboxDeleteParams{ShopID: shopID, MerchantID: merchantID, Kind: kind, Limit: size})
			return err
		})
		if err != nil || !held {
			return total, held, err
		}
		total.add(got)
		if n < int64(size) {
			return total, true, nil
		}
		size = s.sandboxBatching.next(size, took)
	}
}

// awaitSandboxReset waits until no reset's mark is on the shop, up to
// deadline; then it answers 503, and the client's next reset finishes
// the work of one that stopped.
func (s *Service) awaitSandboxReset(ctx context.Context, shopID string, deadline time.Time) error {
	for {
		var marked bool
		err := s.store.View(ctx, func(tx Tx) (err error) {
			marked, err = tx.ShopSandboxResetMarked(ctx, shopID)
			return err
		})
		if err != nil || !marked {
			return err
		}
		if time.Now().After(deadline) {
			return &Error{Code: CodeProviderUnavailable, Cause: CauseSandboxReset, Message: "a newer reset of the shop's sandbox is still under way; retry in a moment", RetryAfter: time.Second}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
