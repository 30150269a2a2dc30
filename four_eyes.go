package payd

import (
	"context"
	"maps"
	"time"
)

// Four eyes: the operator's changes that move money out or steer live
// traffic take two people. The first staff member's request is kept as a
// proposal; a second, different one confirms it, and only then is it
// done, with both named in its audit entry (OperatorAuditEntry's
// ConfirmedBy). A proposal not confirmed within ProposalTTL expires.

// fourEyesActions is the one table of the operator actions (the audit
// log's names, OperatorAct.Action) that need a second person.
var fourEyesActions = map[string]string{
	"settlements.approve":  "approving a settlement register",
	"settlements.pay":      "marking a settlement register paid",
	"payouts.unfreeze":     "unfreezing a merchant's payouts",
	"shops.update_tariffs": "changing a shop's tariffs",
	"routes.put":           "changing a provider route of live traffic",
	"routes.delete":        "removing a provider route of live traffic",
}

// NeedsFourEyes reports whether an operator action takes a second
// person.
func NeedsFourEyes(action string) bool { _, ok := fourEyesActions[action]; return ok }

// FourEyesActions returns the actions that take a second person, with
// what each is, for the docs and the back office.
func FourEyesActions() map[string]string {
	return maps.Clone(fourEyesActions)
}

// ProposalTTL is how long a proposal waits for its second person.
const ProposalTTL = 24 * time.Hour

// PrefixProposal starts a proposal's id.
const PrefixProposal = "prp_"

// ProposalState is where a proposal stands.
type ProposalState string

// Proposal states.
const (
	ProposalPending   ProposalState = "pending"
	ProposalConfirmed ProposalState = "confirmed"
	ProposalRejected  ProposalState = "rejected"
)

// Proposal is a four-eyes change one staff member asked for: the request
// as it came (Method, Path, Body), kept until a second member confirms
// it, one rejects it, or it expires.
type Proposal struct {
	ID       string        `json:"id"`
	Action   string        `json:"action"`
	ObjectID string        `json:"object_id,omitempty"`
	Method   string        `json:"method"`
	Path     string        `json:"path"`
	Body     string        `json:"body,omitempty"`
	State    ProposalState `json:"state"`
	// ProposedBy and ProposedByEmail are the first person's;
	// DecidedBy and DecidedByEmail the second's, once decided.
	ProposedBy      string     `json:"proposed_by"`
	ProposedByEmail string     `json:"proposed_by_email"`
	CreatedAt       time.Time  `json:"created_at"`
	ExpiresAt       time.Time  `json:"expires_at"`
	DecidedBy       string     `json:"decided_by,omitempty"`
	DecidedByEmail  string     `json:"decided_by_email,omitempty"`
	DecidedAt       *time.Time `json:"decided_at,omitempty"`
}

// ErrSamePerson answers a confirmation by the proposal's own author.
var ErrSamePerson = &Error{Code: CodeForbidden, Message: "a second, different staff member must confirm what you proposed"}

// ErrBreakGlassConfirm answers a confirmation by the break-glass token:
// two named people confirm, not a shared secret.
var ErrBreakGlassConfirm = &Error{Code: CodeForbidden, Message: "a proposal is confirmed by a named staff member, not the break-glass token"}

// Propose keeps a four-eyes request of actor as a pending proposal.
func (s *Service) Propose(ctx context.Context, actor *StaffActor, p *Proposal) (*Proposal, error) {
	now := s.clock.Now()
	p.ID, p.State, p.CreatedAt, p.ExpiresAt = s.ids.New(PrefixProposal, now), ProposalPending, now, now.Add(ProposalTTL)
	p.ProposedBy, p.ProposedByEmail = actor.StaffID, actor.Email
	err := s.store.Tx(ctx, func(tx Tx) error { return tx.ProposalInsert(ctx, p) })
	return p, withOp("propose", err)
}

// OpenProposal reads a pending proposal for its decision by decider: one
// that is decided, expired, the decider's own or decided by the
// break-glass token is refused.
func (s *Service) OpenProposal(ctx context.Context, decider *StaffActor, id string) (p *Proposal, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		p, err = tx.ProposalGetForUpdate(ctx, id)
		return notFoundAs(err, "proposal")
	})
	switch {
	case err != nil:
		return nil, withOp("open proposal", err)
	case p.State != ProposalPending:
		return nil, Errorf(CodeInvalidState, "the proposal is %s already", p.State)
	case !s.clock.Now().Before(p.ExpiresAt):
		return nil, Errorf(CodeInvalidState, "the proposal expired at %s; propose it again", p.ExpiresAt.UTC().Format(time.RFC3339))
	case decider.Via == StaffViaBreakGlass:
		return nil, ErrBreakGlassConfirm
	case decider.StaffID == p.ProposedBy:
		return nil, ErrSamePerson
	}
	return p, nil
}

// decideProposal marks the act's proposal decided in tx, the change's own
// transaction: a proposal is confirmed exactly when its change commits.
func decideProposal(ctx context.Context, tx Tx, act *OperatorAct, at time.Time) error {
	p, err := tx.ProposalGetForUpdate(ctx, act.ProposalID)
	if err != nil {
		return err
	}
	if p.State != ProposalPending {
		return Errorf(CodeInvalidState, "the proposal is %s already", p.State)
	}
	p.State, p.DecidedAt = ProposalConfirmed, &at
	if c := act.Confirmer; c != nil {
		p.DecidedBy, p.DecidedByEmail = c.StaffID, c.Email
	}
	return tx.ProposalDecide(ctx, p)
}

// RejectProposal ends a pending proposal unconfirmed; the decider may be
// its author (withdrawing it) or anyone who may confirm it.
func (s *Service) RejectProposal(ctx context.Context, decider *StaffActor, id string) (p *Proposal, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		if p, err = tx.ProposalGetForUpdate(ctx, id); err != nil {
			return notFoundAs(err, "proposal")
		}
		if p.State != ProposalPending {
			return Errorf(CodeInvalidState, "the proposal is %s already", p.State)
		}
		now := s.clock.Now()
		p.State, p.DecidedAt, p.DecidedBy, p.DecidedByEmail = ProposalRejected, &now, decider.StaffID, decider.Email
		return tx.ProposalDecide(ctx, p)
	})
	return p, withOp("reject proposal", err)
}

// ListProposals lists proposals of a state ("" all), newest first.
func (s *Service) ListProposals(ctx context.Context, state ProposalState) ([]*Proposal, error) {
	return read(ctx, s, "list proposals", func(tx Tx) ([]*Proposal, error) { return tx.ProposalList(ctx, state, MaxPageSize) })
}
