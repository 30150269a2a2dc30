package dashboard

import (
	"net/http"
	"strings"

	"github.com/paydhq/payd"
)

type embeddingView struct {
	Origins string // one a line, as the form shows and sends them
	Err     formError
}

// embedding shows the origins whose pages may frame the shop's embedded
// payment form (stage M5, docs/embedded.md).
func (h *Handler) embedding(q *req) {
	if h.svc.Stage() < payd.StageM5 {
		q.problem(http.StatusNotFound, q.l.T("This page is part of a later stage of the service."))
		return
	}
	q.render(http.StatusOK, "embedding", "developers", q.l.T("Embedded payment form"),
		embeddingView{Origins: strings.Join(q.shop.Settings.EmbedOrigins, "\n")})
}

// setEmbedding replaces the list; every origin is checked as the operator's
// setting is, and a refusal names the one at fault.
func (h *Handler) setEmbedding(q *req) {
	if h.svc.Stage() < payd.StageM5 {
		q.problem(http.StatusNotFound, q.l.T("This page is part of a later stage of the service."))
		return
	}
	text := q.r.PostForm.Get("origins")
	var origins []string
	for _, line := range strings.Split(text, "\n") {
		if o := strings.TrimSpace(line); o != "" {
			origins = append(origins, o)
		}
	}
	act(q, func() (*payd.Shop, error) { return h.svc.SetEmbedOrigins(q.ctx, q.principal(), origins) },
		func(*payd.Shop) { q.redirect("developers/embedding", "embedding_saved") },
		func(pe *payd.Error) {
			q.render(httpStatusOf(pe), "embedding", "developers", q.l.T("Embedded payment form"),
				embeddingView{Origins: text, Err: refusedIn(q.l, "embedding", pe)})
		})
}
