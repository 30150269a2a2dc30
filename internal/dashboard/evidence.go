package dashboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/paydhq/payd"
)

// evidenceTypes are the types the service takes, as browsers name them.
var evidenceTypes = map[string]bool{"application/pdf": true, "image/jpeg": true, "image/png": true}

// evidence answers a dispute from its page: the file the browser sent goes
// through the API's two steps, the reservation (CreateEvidenceUpload) and
// the upload through its signed link (UploadEvidence), and is then
// attached with the comment (AttachEvidence). Each step is idempotent
// under a key made from the form's, so a double submit reserves,
// uploads and attaches one file.
func (h *Handler) evidence(q *req) {
	if !h.disputesStage(q) {
		return
	}
	id := q.r.PathValue("id")
	form := formIdempotency(q.r)
	if form.Key == "" {
		q.problem(http.StatusBadRequest, q.l.T("This form has expired. Open the page again and repeat."))
		return
	}
	part := uploadedFile(q.r)
	if part == nil {
		h.showDispute(q, http.StatusBadRequest, formError{Form: "evidence", Field: "file", Message: q.l.T("Choose a file.")})
		return
	}
	// A large file over a slow link may take longer than the listener's
	// timeouts allow a request; a signed-in user with the right role gets
	// the time the API's upload route gives (the upload's lease is as
	// long).
	rc := http.NewResponseController(q.w)
	_ = rc.SetReadDeadline(time.Now().Add(10 * time.Minute))
	_ = rc.SetWriteDeadline(time.Now().Add(11 * time.Minute))
	// The whole file is read before step 1, which needs its size: a
	// multipart body does not say it. It is bounded by the service's
	// largest file, one byte more tells a file that is too large.
	data, err := io.ReadAll(io.LimitReader(part, payd.MaxEvidenceBytes+1))
	if err != nil {
		h.showDispute(q, http.StatusRequestEntityTooLarge, formError{Form: "evidence", Field: "file",
			Message: q.l.T("The file could not be read. Send it again.")})
		return
	}
	in := payd.EvidenceUploadCreate{FileName: part.FileName(), ContentType: part.Header.Get("Content-Type"), SizeBytes: int64(len(data))}
	if !evidenceTypes[in.ContentType] {
		in.ContentType = http.DetectContentType(data)
	}
	comment := q.r.PostForm.Get("comment")
	sum := sha256.Sum256(data)
	step := func(name string, parts ...string) payd.Idempotency {
		hash := sha256.New()
		fmt.Fprintf(hash, "%s\n%x\n%x", q.r.URL.Path, form.Hash, sum)
		for _, p := range parts {
			fmt.Fprintf(hash, "\n%s", p)
		}
		return payd.Idempotency{Key: form.Key + "." + name, Hash: hash.Sum(nil)}
	}
	err = h.answerDispute(q, id, in, data, comment, step)
	if err != nil {
		var pe *payd.Error
		if errors.As(err, &pe) && pe.Code != payd.CodeInternal {
			h.showDispute(q, httpStatusOf(pe), formError{Form: "evidence", Field: pe.Param, Message: pe.Message})
			return
		}
		q.fail(err)
		return
	}
	q.redirect("disputes/"+id, "evidence_attached")
}

func (h *Handler) answerDispute(q *req, id string, in payd.EvidenceUploadCreate, data []byte, comment string,
	step func(string, ...string) payd.Idempotency) error {
	resp, err := h.svc.CreateEvidenceUpload(q.ctx, q.principal(), step("upload", in.FileName, in.ContentType), id, in)
	if err != nil {
		return err
	}
	var up payd.EvidenceUploadJSON
	if err := json.Unmarshal(resp.Body, &up); err != nil {
		return fmt.Errorf("read the evidence upload: %w", err)
	}
	link, err := url.Parse(up.UploadURL)
	if err != nil {
		return fmt.Errorf("read the upload link: %w", err)
	}
	_, err = h.svc.UploadEvidence(q.ctx, payd.EvidenceUpload{FileID: up.FileID, Expires: link.Query().Get("expires"),
		Sig: link.Query().Get("sig"), ContentType: in.ContentType, Length: int64(len(data)), Body: bytes.NewReader(data)})
	// A repeated form finds its file uploaded by the first: the link
	// works once, and the file is the same (the key covers its bytes).
	if err != nil && !(resp.Replayed && payd.ErrorCodeOf(err) == payd.CodeInvalidState) {
		return err
	}
	_, err = h.svc.AttachEvidence(q.ctx, q.principal(), step("attach", up.FileID, comment), id, []string{up.FileID}, comment)
	return err
}
