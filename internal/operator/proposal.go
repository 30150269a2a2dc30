package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

// Four eyes (payd.NeedsFourEyes): a staff member's request of such an
// action is kept as a proposal and answered 202 with it; a second,
// different member who may do the same confirms it, and the request is
// then served again as it came, its audit entry naming both and the
// proposal confirmed in the change's own transaction. The break-glass
// token acts alone (it is audited as such), but never confirms.

func (s *server) proposalRoutes(h func(string, func(*http.Request) (int, any, error))) {
	h("GET /admin/v1/proposals", s.listProposals)
	h("POST /admin/v1/proposals/{id}/confirm", s.confirmProposal)
	h("POST /admin/v1/proposals/{id}/reject", s.rejectProposal)
}

// proposalJSON is a proposal as the operator API shows it.
type proposalJSON struct {
	Object string `json:"object"`
	*payd.Proposal
}

func proposalView(p *payd.Proposal) proposalJSON {
	return proposalJSON{Object: "proposal", Proposal: p}
}

// propose keeps the request as a proposal of actor.
func (s *server) propose(r *http.Request, actor *payd.StaffActor, action string, body []byte) (int, any, error) {
	p, err := s.svc.Propose(r.Context(), actor, &payd.Proposal{Action: action, ObjectID: r.PathValue("id"), Method: r.Method,
		Path: r.URL.RequestURI(), Body: string(body)})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusAccepted, proposalView(p), nil
}

func (s *server) listProposals(r *http.Request) (int, any, error) {
	state := payd.ProposalState(r.URL.Query().Get("state"))
	list, err := s.svc.ListProposals(r.Context(), state)
	return http.StatusOK, items[proposalJSON]{views(list, proposalView)}, err
}

// confirmation is what a proposal's request carries when it is served
// again: only confirmProposal puts it in a context, never a client.
type confirmation struct {
	proposal            *payd.Proposal
	proposer, confirmer *payd.StaffActor
}

type confirmationKey struct{}

func confirmationOf(r *http.Request) *confirmation {
	c, _ := r.Context().Value(confirmationKey{}).(*confirmation)
	return c
}

// confirmProposal serves the proposal's request again with the
// confirmer's permissions checked, and answers what it answered.
func (s *server) confirmProposal(r *http.Request) (int, any, error) {
	confirmer := actorOf(r)
	p, err := s.svc.OpenProposal(r.Context(), confirmer, r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	c := &confirmation{proposal: p, confirmer: confirmer,
		proposer: &payd.StaffActor{StaffID: p.ProposedBy, Email: p.ProposedByEmail, Via: payd.StaffViaProposal}}
	ctx := context.WithValue(context.WithoutCancel(r.Context()), confirmationKey{}, c)
	again, err := http.NewRequestWithContext(ctx, p.Method, p.Path, bytes.NewReader([]byte(p.Body)))
	if err != nil {
		return 0, nil, err
	}
	again.RemoteAddr = r.RemoteAddr
	rec := &httpapi.Recorder{}
	s.mux.ServeHTTP(rec, again)
	return rec.Status, json.RawMessage(rec.Body.Bytes()), nil
}

// errProposerMayNot refuses the confirmation of a proposal whose author
// was disabled, or lost the role that allowed it, since proposing.
var errProposerMayNot = &payd.Error{Code: payd.CodeForbidden,
	Message: "the staff member who proposed this may no longer do it; it cannot be confirmed"}

// proposerStillMay checks, at the confirmation, that the proposal's
// author is still enabled and still allowed what it asked: the change is
// done in both names, each allowed it at the moment it is done.
func (s *server) proposerStillMay(r *http.Request, p *payd.Proposal, perms []payd.StaffPermission) error {
	st, err := s.acc.GetStaff(r.Context(), p.ProposedBy)
	if payd.ErrorCodeOf(err) == payd.CodeNotFound {
		return errProposerMayNot
	}
	if err != nil {
		return err
	}
	now := &payd.StaffActor{StaffID: st.ID, Email: st.Email, Role: st.Role, Via: payd.StaffViaProposal}
	if st.DisabledAt != nil || now.Allow(perms...) != nil {
		return errProposerMayNot
	}
	return nil
}

func (s *server) rejectProposal(r *http.Request) (int, any, error) {
	p, err := s.svc.RejectProposal(r.Context(), actorOf(r), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, proposalView(p), nil
}
