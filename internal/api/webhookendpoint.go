package api

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

type webhookEndpointCreate struct {
	URL         *string          `json:"url"`
	Events      []payd.EventType `json:"events"`
	Description string           `json:"description"`
}

func (s *Server) createWebhookEndpoint(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in webhookEndpointCreate
	idem, err := httpapi.ReadIdempotent(w, r, &in, "id", "secret", "status", "created_at")
	if err != nil {
		return err
	}
	if in.URL == nil {
		return payd.Invalid("url", "url is required")
	}
	if in.Events == nil {
		return payd.Invalid("events", "events is required")
	}
	resp, err := s.svc.CreateWebhookEndpoint(r.Context(), p, idem, payd.WebhookEndpointCreate{
		URL: *in.URL, Events: in.Events, Description: in.Description,
	})
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

// writeResponse writes the answer of an idempotent operation: the first
// answer with its own status, a replay with 200 (Endpoints: replay).
func writeResponse(w http.ResponseWriter, resp *payd.Response) {
	if resp.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	httpapi.WriteRaw(w, httpapi.OutcomeStatus(resp.Outcome), resp.Body)
}

func (s *Server) listWebhookEndpoints(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	list, err := s.svc.ListWebhookEndpoints(r.Context(), p)
	if err != nil {
		return err
	}
	items := make([]any, 0, len(list))
	for _, e := range list {
		items = append(items, e.View(false))
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"items": items})
	return nil
}

func (s *Server) getWebhookEndpoint(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	e, err := s.svc.GetWebhookEndpoint(r.Context(), p, r.PathValue("endpoint_id"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, e.View(false))
	return nil
}

type webhookEndpointPatch struct {
	URL          *string                     `json:"url"`
	Events       *[]payd.EventType           `json:"events"`
	Status       *payd.WebhookEndpointStatus `json:"status"`
	RotateSecret *bool                       `json:"rotate_secret"`
	Description  *string                     `json:"description"`
}

func (s *Server) updateWebhookEndpoint(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in webhookEndpointPatch
	idem, err := httpapi.ReadIdempotent(w, r, &in, "id", "secret", "created_at")
	if err != nil {
		return err
	}
	up := payd.WebhookEndpointUpdate{URL: in.URL, Status: in.Status, RotateSecret: in.RotateSecret != nil && *in.RotateSecret}
	if in.Events != nil {
		up.Events = *in.Events
		if up.Events == nil {
			up.Events = []payd.EventType{}
		}
	}
	resp, err := s.svc.UpdateWebhookEndpoint(r.Context(), p, idem, r.PathValue("endpoint_id"), up)
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

func (s *Server) deleteWebhookEndpoint(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	if err := s.svc.DeleteWebhookEndpoint(r.Context(), p, r.PathValue("endpoint_id")); err != nil {
		return err
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNoContent)
	return nil
}
