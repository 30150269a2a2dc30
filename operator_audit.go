package payd

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// OperatorAuditEntry records one change made by the operator's staff (or
// the break-glass token): who, from where, what, on which object, and for
// a change of settings what they were and became. Entries are only ever
// appended; they are written in the change's own transaction, so a change
// without its entry never commits. The merchants' audit log (AuditEntry)
// is apart and unchanged.
type OperatorAuditEntry struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
	// StaffID and StaffEmail are the actor's, both "" for the break-glass
	// token; Via is how it came in (StaffViaToken, ...), TokenID the
	// token when it was one.
	StaffID    string `json:"staff_id,omitempty"`
	StaffEmail string `json:"staff_email,omitempty"`
	Via        string `json:"via"`
	TokenID    string `json:"token_id,omitempty"`
	Addr       string `json:"addr,omitempty"`
	// Action names the change (OperatorAct.Action); ObjectID the object
	// changed or made, MerchantID its merchant when it has one.
	Action     string `json:"action"`
	ObjectID   string `json:"object_id,omitempty"`
	MerchantID string `json:"merchant_id,omitempty"`
	// Before and After are the settings as JSON, for changes of settings
	// (a shop's, a merchant's, a provider route); "" otherwise.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Detail is what the rest leaves unsaid (the request's body).
	Detail string `json:"detail,omitempty"`
	// ConfirmedByID and ConfirmedByEmail name the second person of a
	// change that needed two (four eyes).
	ConfirmedByID    string `json:"confirmed_by_id,omitempty"`
	ConfirmedByEmail string `json:"confirmed_by_email,omitempty"`
}

// OperatorAuditListParams pages and filters the operator audit log,
// newest first. Empty fields do not filter.
type OperatorAuditListParams struct {
	ListParams
	StaffID    string
	Action     string
	ObjectID   string
	MerchantID string
	Created    TimeRange
}

// OperatorAct is an operator's change under way: the adapter that serves
// the request makes it (WithOperatorAct) before it calls the service, the
// service's methods add what only they know (the object made, settings
// before and after), and the first transaction of the change that commits
// carries its audit entry (auditedStore). An act nothing wrote to the
// store (the test clock) is written by the adapter afterwards
// (Service.RecordOperatorAct).
type OperatorAct struct {
	Actor      *StaffActor
	Action     string
	ObjectID   string
	MerchantID string
	Detail     string
	// Confirmer is the second person of a change that needed two, and
	// ProposalID the proposal it confirms: the proposal is marked
	// confirmed in the change's transaction.
	Confirmer  *StaffActor
	ProposalID string

	mu      sync.Mutex
	before  string
	after   string
	written bool
}

type operatorActKey struct{}

// WithOperatorAct returns ctx carrying act.
func WithOperatorAct(ctx context.Context, act *OperatorAct) context.Context {
	return context.WithValue(ctx, operatorActKey{}, act)
}

// OperatorActOf returns the act ctx carries, or nil.
func OperatorActOf(ctx context.Context) *OperatorAct {
	a, _ := ctx.Value(operatorActKey{}).(*OperatorAct)
	return a
}

// NoteOperatorObject names the object an operator's change made or
// changed, when the change is an operator's; the services call it where
// the object's id is first known (a merchant created).
func NoteOperatorObject(ctx context.Context, objectID, merchantID string) {
	if a := OperatorActOf(ctx); a != nil {
		a.mu.Lock()
		defer a.mu.Unlock()
		if objectID != "" {
			a.ObjectID = objectID
		}
		if merchantID != "" {
			a.MerchantID = merchantID
		}
	}
}

// NoteOperatorChange records the settings an operator's change found and
// left, as JSON, for its audit entry.
func NoteOperatorChange(ctx context.Context, before, after any) {
	a := OperatorActOf(ctx)
	if a == nil {
		return
	}
	b, _ := json.Marshal(before)
	c, _ := json.Marshal(after)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.before, a.after = string(b), string(c)
}

// Written reports whether the act's entry has committed.
func (a *OperatorAct) Written() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.written
}

// entry is the act's audit entry, stamped at with an id of ids.
func (a *OperatorAct) entry(ids *IDGen, at time.Time) *OperatorAuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := &OperatorAuditEntry{ID: ids.New(PrefixOperatorAudit, at), At: at, Action: a.Action, ObjectID: a.ObjectID,
		MerchantID: a.MerchantID, Detail: a.Detail, Before: a.before, After: a.after}
	if x := a.Actor; x != nil {
		e.StaffID, e.StaffEmail, e.Via, e.TokenID, e.Addr = x.StaffID, x.Email, x.Via, x.TokenID, x.Addr
	}
	if c := a.Confirmer; c != nil {
		e.ConfirmedByID, e.ConfirmedByEmail = c.StaffID, c.Email
	}
	return e
}

// auditedStore is the Store both services work through: a transaction
// run for an operator's act (its context carries one, not yet written)
// appends the act's entry before it commits, so the change and its
// record commit together or not at all. Every other call passes through.
type auditedStore struct {
	Store
	ids   *IDGen
	clock Clock
}

// OperatorAudited returns store wrapped so that operators' changes are
// audited in their own transactions; wrapping twice wraps once.
func OperatorAudited(store Store, ids *IDGen, clock Clock) Store {
	if _, ok := store.(auditedStore); ok || store == nil {
		return store
	}
	return auditedStore{Store: store, ids: ids, clock: clock}
}

// Tx runs fn and, for an operator's act not yet written, appends its
// entry in the same transaction.
func (s auditedStore) Tx(ctx context.Context, fn func(Tx) error) error {
	act := OperatorActOf(ctx)
	if act == nil || act.Written() {
		return s.Store.Tx(ctx, fn)
	}
	return s.Store.Tx(ctx, func(tx Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		now := s.clock.Now()
		if act.ProposalID != "" {
			if err := decideProposal(ctx, tx, act, now); err != nil {
				return err
			}
		}
		if err := tx.OperatorAuditInsert(ctx, act.entry(s.ids, now)); err != nil {
			return err
		}
		tx.AfterCommit(func() {
			act.mu.Lock()
			act.written = true
			act.mu.Unlock()
		})
		return nil
	})
}

// RecordOperatorAct writes the entry of an operator's change that wrote
// nothing through the store (the test clock is the process's), in a
// transaction of its own; an act already written is left alone.
func (s *Service) RecordOperatorAct(ctx context.Context, act *OperatorAct) error {
	if act == nil || act.Written() {
		return nil
	}
	return withOp("record operator act", s.store.Tx(WithOperatorAct(ctx, act), func(Tx) error { return nil }))
}

// ListOperatorAudit pages the operator audit log, newest first.
func (s *Service) ListOperatorAudit(ctx context.Context, p OperatorAuditListParams) (Page[*OperatorAuditEntry], error) {
	return read(ctx, s, "list operator audit log", func(tx Tx) (Page[*OperatorAuditEntry], error) {
		return tx.OperatorAuditList(ctx, &p)
	})
}
