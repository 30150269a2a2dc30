package dashboard

import (
	"net/http"

	"github.com/paydhq/payd"
)

// developers is the overview: where the keys, the webhook endpoints and
// the events log are.
func (h *Handler) developers(q *req) {
	q.render(http.StatusOK, "developers", "developers", q.l.T("Developers"), struct{ M5 bool }{h.svc.Stage() >= payd.StageM5})
}

// keyRow is what the keys page shows of a key: its hint (prefix and last
// four characters), never the secret, which is not stored.
type keyRow struct {
	*payd.APIKey
	State payd.KeyState
}

type keysView struct {
	Keys []keyRow
	// Newest is the id of the mode's newest key, the rotation form's
	// guard: a second submit of the same form finds a newer key and
	// issues nothing.
	Newest string
	Err    formError
	// Secret is set only on the answer to a rotation: the one time the
	// new secret is shown.
	Secret string
	Key    *payd.APIKey
	// Confirm is the key whose early expiry waits for the user's yes.
	Confirm *payd.APIKey
}

// keys lists the shop's keys of the page's mode, newest first.
func (h *Handler) keys(q *req) { h.showKeys(q, http.StatusOK, keysView{}) }

func (h *Handler) showKeys(q *req, status int, v keysView) {
	all, err := h.svc.ListKeys(q.ctx, q.shop.ID)
	if err != nil {
		q.fail(err)
		return
	}
	mode := q.principal().Mode
	now := h.now()
	for _, k := range all {
		if k.Mode != mode {
			continue
		}
		if v.Newest == "" && v.Secret == "" {
			v.Newest = k.ID
		}
		v.Keys = append(v.Keys, keyRow{APIKey: k, State: k.StateAt(now)})
	}
	name := "keys"
	if v.Secret != "" {
		name = "key_secret"
	}
	q.render(status, name, "developers", q.l.T("API keys"), v)
}

// rotateKey issues a new key of the page's mode; the others of the mode
// keep working for the contract's 24 hours. The answer shows the new
// secret once: it is in this answer only (no-store), never kept to be
// shown again. A second submit of the same form finds a newer key than
// the form saw and issues nothing.
func (h *Handler) rotateKey(q *req) {
	act(q, func() (keysView, error) {
		key, secret, err := h.svc.RotateKey(q.ctx, q.principal(), q.r.PostForm.Get("newest"))
		return keysView{Secret: secret, Key: key}, err
	}, func(v keysView) { h.showKeys(q, http.StatusOK, v) }, func(pe *payd.Error) {
		if pe.Code == payd.CodeInvalidState {
			q.redirect("developers/keys", "already_rotated")
			return
		}
		q.showRefusal(pe)
	})
}

// expireKey ends an older key's overlap at once, for a secret that
// leaked. The first post, from the key's row, only asks: the page shows
// which key stops and that the newest keeps working, and a second post
// with confirm=yes expires it. The service refuses the newest key and a
// key that stopped already.
func (h *Handler) expireKey(q *req) {
	id := q.r.PathValue("id")
	if q.r.PostForm.Get("confirm") != "yes" {
		all, err := h.svc.ListKeys(q.ctx, q.shop.ID)
		if err != nil {
			q.fail(err)
			return
		}
		for _, k := range all {
			if k.ID == id && k.Mode == q.principal().Mode {
				h.showKeys(q, http.StatusOK, keysView{Confirm: k})
				return
			}
		}
		q.showRefusal(payd.NotFound("key"))
		return
	}
	act(q, func() (*payd.APIKey, error) { return h.svc.ExpireKey(q.ctx, q.principal(), id) },
		func(*payd.APIKey) { q.redirect("developers/keys", "key_expired") }, nil)
}
