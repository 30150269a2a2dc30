package payd

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/paydhq/payd/internal/urlguard"
)

// WebhookEndpointStatus is a webhook endpoint's state (States: Webhook
// endpoint).
type WebhookEndpointStatus string

// Webhook endpoint states. `failing` is set only by the service.
const (
	WebhookActive   WebhookEndpointStatus = "active"
	WebhookDisabled WebhookEndpointStatus = "disabled"
	WebhookFailing  WebhookEndpointStatus = "failing"
)

// WebhookEndpointStatusAll returns every webhook endpoint state.
func WebhookEndpointStatusAll() []WebhookEndpointStatus {
	return []WebhookEndpointStatus{WebhookActive, WebhookDisabled, WebhookFailing}
}

// AuditRotateWebhookSecret is the operation, and audit action, of a
// rotation of an endpoint's signing secret: apart from the endpoint's
// other changes ("update webhook endpoint"), since it changes who can sign
// as payd.
const AuditRotateWebhookSecret AuditAction = "rotate webhook secret"

// SecretOverlap is how long a rotated-out signing secret still signs
// deliveries (Limits: secret overlap).
const SecretOverlap = 24 * time.Hour

// WebhookEndpoint is a merchant's receiver of events. The signing secret
// cannot be hashed, since deliveries are signed with it: the store keeps
// it sealed under the service's key-encryption key (docs/security.md,
// "What is stored how").
type WebhookEndpoint struct {
	ID              string
	ShopID          string
	Test            bool
	URL             string
	Events          []EventType
	Status          WebhookEndpointStatus
	Description     string
	Secret          string
	PrevSecret      string
	PrevSecretUntil *time.Time
	CreatedAt       time.Time
	// ConsecutiveFailures counts failed attempts since the last success.
	ConsecutiveFailures int
}

// WebhookEndpointJSON is the contract's WebhookEndpoint object.
type WebhookEndpointJSON struct {
	ID          string                `json:"id"`
	URL         string                `json:"url"`
	Events      []EventType           `json:"events"`
	Status      WebhookEndpointStatus `json:"status"`
	CreatedAt   time.Time             `json:"created_at"`
	Description string                `json:"description,omitempty"`
	Secret      string                `json:"secret,omitempty"`
}

// View returns the contract's object; the secret only when withSecret.
func (e *WebhookEndpoint) View(withSecret bool) WebhookEndpointJSON {
	v := WebhookEndpointJSON{ID: e.ID, URL: e.URL, Events: e.Events, Status: e.Status, CreatedAt: e.CreatedAt, Description: e.Description}
	if withSecret {
		v.Secret = e.Secret
	}
	return v
}

// Subscribed reports whether the endpoint wants events of type t.
func (e *WebhookEndpoint) Subscribed(t EventType) bool {
	for _, k := range e.Events {
		if k == t {
			return true
		}
	}
	return false
}

// WebhookEndpointCreate is `POST /webhook-endpoints`.
type WebhookEndpointCreate struct {
	URL         string
	Events      []EventType
	Description string
}

// WebhookEndpointUpdate is `PATCH /webhook-endpoints/{id}`; nil fields stay.
type WebhookEndpointUpdate struct {
	URL          *string
	Events       []EventType
	Status       *WebhookEndpointStatus
	RotateSecret bool
}

func newWebhookSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

func (s *Service) checkWebhookURL(p *Principal, raw string) (string, error) {
	// Deliveries leave the service in both modes, so the public-address rule
	// holds for test keys too; only an operator's allow-list loosens it.
	u, err := urlguard.Check(raw, urlguard.Options{AllowHosts: s.webhookAllowHosts})
	if err != nil {
		return "", Invalid("url", "%v", err)
	}
	return u.String(), nil
}

func checkEventTypes(types []EventType) error {
	if len(types) == 0 {
		return Invalid("events", "must name at least one event type")
	}
	seen := map[EventType]bool{}
	for i, t := range types {
		if !t.Valid() {
			return Invalid("events."+strconv.Itoa(i), "unknown event type %q", t)
		}
		if seen[t] {
			return Invalid("events."+strconv.Itoa(i), "event type %q is listed twice", t)
		}
		seen[t] = true
	}
	return nil
}

// CreateWebhookEndpoint registers an endpoint; the answer carries its secret,
// shown this once.
func (s *Service) CreateWebhookEndpoint(ctx context.Context, p *Principal, idem Idempotency, in WebhookEndpointCreate) (*Response, error) {
	url, err := s.checkWebhookURL(p, in.URL)
	if err != nil {
		return nil, err
	}
	if err := checkEventTypes(in.Events); err != nil {
		return nil, err
	}
	if err := checkText("description", in.Description, 0, 128); err != nil {
		return nil, err
	}
	return s.idempotent(ctx, AuditCreateWebhook, p, idem, func(tx Tx) (Outcome, any, error) {
		now := s.clock.Now()
		e := &WebhookEndpoint{
			ID: s.ids.NewFor(PrefixWebhookEndpoint, now, p.Shop.MerchantID), ShopID: p.Shop.ID, Test: p.Test(), URL: url,
			Events: in.Events, Status: WebhookActive, Description: in.Description,
			Secret: newWebhookSecret(), CreatedAt: now,
		}
		if err := tx.WebhookEndpointInsert(ctx, e); err != nil {
			return 0, nil, err
		}
		return OutcomeCreated, e.View(true), nil
	})
}

// GetWebhookEndpoint returns an endpoint of the principal's shop and mode.
func (s *Service) GetWebhookEndpoint(ctx context.Context, p *Principal, id string) (e *WebhookEndpoint, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		e, err = tx.WebhookEndpointGet(ctx, p.Shop.ID, p.Test(), id)
		return err
	})
	return e, notFoundAs(err, "webhook endpoint")
}

// ListWebhookEndpoints lists the endpoints of the principal's shop and mode.
func (s *Service) ListWebhookEndpoints(ctx context.Context, p *Principal) ([]*WebhookEndpoint, error) {
	return read(ctx, s, "list webhook endpoints", func(tx Tx) ([]*WebhookEndpoint, error) { return tx.WebhookEndpointList(ctx, p.Shop.ID, p.Test()) })
}

// UpdateWebhookEndpoint changes an endpoint. `status: active` revives a
// failing or disabled endpoint; `failing` cannot be set. Rotation keeps the
// old secret signing for SecretOverlap and returns the new one once.
func (s *Service) UpdateWebhookEndpoint(ctx context.Context, p *Principal, idem Idempotency, id string, in WebhookEndpointUpdate) (*Response, error) {
	var url string
	if in.URL != nil {
		var err error
		if url, err = s.checkWebhookURL(p, *in.URL); err != nil {
			return nil, err
		}
	}
	if in.Events != nil {
		if err := checkEventTypes(in.Events); err != nil {
			return nil, err
		}
	}
	if in.Status != nil && *in.Status != WebhookActive && *in.Status != WebhookDisabled {
		return nil, Invalid("status", "must be active or disabled; failing is set only by the service")
	}
	// A rotation is an operation of its own in the audit log, whatever
	// else the request changes.
	op := AuditUpdateWebhook
	if in.RotateSecret {
		op = AuditRotateWebhookSecret
	}
	return s.idempotent(ctx, op, p, idem, func(tx Tx) (Outcome, any, error) {
		e, err := tx.WebhookEndpointGetForUpdate(ctx, p.Shop.ID, p.Test(), id)
		if err != nil {
			return 0, nil, notFoundAs(err, "webhook endpoint")
		}
		if in.URL != nil {
			e.URL = url
		}
		if in.Events != nil {
			e.Events = in.Events
		}
		if in.Status != nil {
			e.Status = *in.Status
			if e.Status == WebhookActive {
				e.ConsecutiveFailures = 0
			}
		}
		if in.RotateSecret {
			until := s.clock.Now().Add(SecretOverlap)
			e.PrevSecret, e.PrevSecretUntil, e.Secret = e.Secret, &until, newWebhookSecret()
		}
		if err := tx.WebhookEndpointUpdate(ctx, e); err != nil {
			return 0, nil, err
		}
		return OutcomeOK, e.View(in.RotateSecret), nil
	})
}

// DeleteWebhookEndpoint removes an endpoint: nothing more is delivered to
// it and it is no longer listed. Its past attempt log stays for operators.
func (s *Service) DeleteWebhookEndpoint(ctx context.Context, p *Principal, id string) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		if err := s.permit(ctx, tx, p, AuditDeleteWebhook); err != nil {
			return err
		}
		if err := tx.WebhookEndpointDelete(ctx, p.Shop.ID, p.Test(), id, s.clock.Now()); err != nil {
			return notFoundAs(err, "webhook endpoint")
		}
		if p.Actor == nil {
			return nil
		}
		return s.auditShop(ctx, tx, p.Actor, p.Shop.MerchantID, p.Shop.ID, p.Mode, AuditDeleteWebhook, id)
	})
}
