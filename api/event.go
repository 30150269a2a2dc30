package api

import (
	"encoding/json"
	"net/http"

	"github.com/paydhq/payd"
)

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := parseList(q, "type", "object_id", "created_at_gte", "created_at_lt")
	if err != nil {
		return err
	}
	params := &payd.EventListParams{ListParams: lp}
	if t := q.Get("type"); t != "" {
		if !payd.EventType(t).Valid() {
			return invalidf("type", "unknown event type %q", t)
		}
		params.Type = payd.EventType(t)
	}
	if id := q.Get("object_id"); id != "" {
		if len(id) > 40 {
			return invalidf("object_id", "object_id must be at most 40 characters")
		}
		params.ObjectID = id
	}
	if params.Created, err = parseTimeRange(q); err != nil {
		return err
	}
	page, err := s.svc.ListEvents(r.Context(), p, params)
	if err != nil {
		return err
	}
	items := make([]json.RawMessage, 0, len(page.Items))
	for _, e := range page.Items {
		items = append(items, e.WithDelivery())
	}
	writeJSON(w, http.StatusOK, listBody{Items: items, NextCursor: encodeCursor(page.Next, print)})
	return nil
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	e, err := s.svc.GetEvent(r.Context(), p, r.PathValue("event_id"))
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, e.Body)
	return nil
}

func (s *Server) resendEvent(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	idem, err := readIdempotent(w, r, nil)
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
