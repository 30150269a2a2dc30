package dashboard

import (
	"mime"
	"strconv"
)

// evidenceFile downloads a file attached to one of the shop's disputes,
// for every role that may read the dispute. The file is always an
// attachment of the type it was accepted as (PDF, JPEG or PNG, checked
// by its first bytes at upload), never shown in the dashboard's own
// origin: a file crafted to read as HTML or script to a sniffing browser
// gets nosniff, a sandbox policy and no inline disposition.
func (h *Handler) evidenceFile(q *req) {
	if !h.disputesStage(q) {
		return
	}
	f, err := h.svc.AttachedEvidence(q.ctx, q.principal(), q.r.PathValue("id"), q.r.PathValue("file"))
	if err != nil {
		q.fail(err)
		return
	}
	disposition := mime.FormatMediaType("attachment", map[string]string{"filename": f.FileName})
	if disposition == "" {
		disposition = mime.FormatMediaType("attachment", map[string]string{"filename": f.ID})
	}
	hd := q.w.Header()
	hd.Set("Content-Type", f.ContentType)
	hd.Set("Content-Length", strconv.FormatInt(f.SizeBytes, 10))
	hd.Set("Content-Disposition", disposition)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	hd.Set("Cache-Control", "private, no-store")
	if err := h.svc.CopyEvidence(q.ctx, f, q.w); err != nil {
		// The status is sent: the download breaks off short of its
		// Content-Length, which the browser reports as failed.
		h.log.Error("dashboard: evidence download", "file_id", f.ID, "err", err.Error())
	}
}
