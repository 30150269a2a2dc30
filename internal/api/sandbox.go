package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

// feedItem is one place of the sandbox event feed as the contract shows
// it (EventFeedItem in openapi/openapi.yaml).
type feedItem struct {
	Sequence  int64     `json:"sequence"`
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
}

// eventFeed is `GET /v1/test/events`: the shop's test events after
// after_sequence, in sequence order, and the feed's last sequence.
func (s *Server) eventFeed(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	if !p.Test() {
		return &payd.Error{Code: payd.CodeForbidden, Message: "the event feed works with test keys only"}
	}
	q := r.URL.Query()
	limit := payd.DefaultPageSize
	if v := q.Get("limit"); v != "" || q.Has("limit") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > payd.MaxPageSize {
			return payd.Invalid("limit", "limit must be an integer 1..%d", payd.MaxPageSize)
		}
		limit = n
	}
	var after int64
	if v := q.Get("after_sequence"); v != "" || q.Has("after_sequence") {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return payd.Invalid("after_sequence", "after_sequence must be a non-negative integer")
		}
		after = n
	}
	items, last, err := s.svc.EventFeed(r.Context(), p, after, limit)
	if err != nil {
		return err
	}
	out := make([]feedItem, 0, len(items))
	for _, it := range items {
		out = append(out, feedItem{Sequence: it.Seq, ID: it.ID, Type: string(it.Type), CreatedAt: it.CreatedAt.UTC()})
	}
	httpapi.WriteJSON(w, http.StatusOK, struct {
		Items        []feedItem `json:"items"`
		LastSequence int64      `json:"last_sequence"`
	}{out, last})
	return nil
}

// resetSandbox is `POST /v1/test/reset`. Its Idempotency-Key is checked
// as on every POST but not kept: a reset is idempotent by nature and
// deletes the shop's records of keys.
func (s *Server) resetSandbox(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	if !p.Test() {
		return &payd.Error{Code: payd.CodeForbidden, Message: "the sandbox reset works with test keys only"}
	}
	if _, err := httpapi.ReadIdempotent(w, r, nil); err != nil {
		return err
	}
	// The server's write timeout is for every other route: under a long
	// reset it would close the connection, the answer unsent, while the
	// reset carries on. A writer that cannot move it (a test's recorder)
	// has none.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(payd.SandboxResetLimit))
	deleted, err := s.svc.ResetSandbox(r.Context(), p)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, struct {
		Deleted *payd.SandboxResetCounts `json:"deleted"`
	}{deleted})
	return nil
}
