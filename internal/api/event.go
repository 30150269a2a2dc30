package api

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "type", "object_id", "created_at_gte", "created_at_lt")
	if err != nil {
		return err
	}
	params := &payd.EventListParams{ListParams: lp}
	if t := q.Get("type"); t != "" {
		if !payd.EventType(t).Valid() {
			return payd.Invalid("type", "unknown event type %q", t)
		}
		params.Type = payd.EventType(t)
	}
	if id := q.Get("object_id"); id != "" {
		if len(id) > 40 {
			return payd.Invalid("object_id", "object_id must be at most 40 characters")
		}
		params.ObjectID = id
	}
	if params.Created, err = httpapi.ParseTimeRange(q); err != nil {
		return err
	}
	page, err := s.svc.ListEvents(r.Context(), p, params)
	if err != nil {
		return err
	}
	// The stored bodies are joined as they are: encoding/json would
	// check and compact every byte of every event again.
	writeRawList(w, page.Items, func(b []byte, e *payd.Event) []byte { return e.AppendWithDelivery(b) },
		httpapi.EncodeCursor(page.Next, print))
	return nil
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	e, err := s.svc.GetEvent(r.Context(), p, r.PathValue("event_id"))
	if err != nil {
		return err
	}
	httpapi.WriteRaw(w, http.StatusOK, e.Body)
	return nil
}

func (s *Server) resendEvent(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	idem, err := httpapi.ReadIdempotent(w, r, nil)
	if err != nil {
		return err
	}
	resp, err := s.svc.ResendEvent(r.Context(), p, idem, r.PathValue("event_id"))
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}
