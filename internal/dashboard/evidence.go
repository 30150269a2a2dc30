package dashboard

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
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

// evidenceSniff is the most of a file read before room is reserved for
// it: what http.DetectContentType looks at.
const evidenceSniff = 512

// evidence answers a dispute from its page: the file the browser sent goes
// through the API's two steps, the reservation (CreateEvidenceUpload) and
// the upload through its signed link (UploadEvidence), and is then
// attached with the comment (AttachEvidence). Each step is idempotent
// under a key made from the form's, so a double submit reserves,
// uploads and attaches one file.
//
// A multipart body says a file's size only once all of it has been read,
// so the reservation is for the largest file the service takes
// (SizeUpTo): the room is counted against the dispute's files and the
// shop's waiting bytes before more than the first evidenceSniff bytes of
// the file are read, and the file then streams to storage a chunk at a
// time. Uploads at once are as many as the bounds have room for, each
// holding one chunk in memory; a refused one reads no further.
func (h *Handler) evidence(q *req) {
	if !h.disputesStage(q) {
		return
	}
	id := q.r.PathValue("id")
	form, ok := postIdempotency(q)
	if !ok {
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
	body := bufio.NewReaderSize(part, evidenceSniff)
	head, err := body.Peek(evidenceSniff)
	if err != nil && !errors.Is(err, io.EOF) {
		h.showDispute(q, http.StatusRequestEntityTooLarge, formError{Form: "evidence", Field: "file",
			Message: q.l.T("The file could not be read. Send it again.")})
		return
	}
	if len(head) == 0 {
		h.showDispute(q, http.StatusBadRequest, formError{Form: "evidence", Field: "file", Message: q.l.T("Choose a file.")})
		return
	}
	in := payd.EvidenceUploadCreate{FileName: part.FileName(), ContentType: part.Header.Get("Content-Type"),
		SizeBytes: payd.MaxEvidenceBytes, SizeUpTo: true}
	if !evidenceTypes[in.ContentType] {
		in.ContentType = http.DetectContentType(head)
	}
	comment := q.r.PostForm.Get("comment")
	step := func(name string, parts ...string) payd.Idempotency {
		hash := sha256.New()
		fmt.Fprintf(hash, "%s\n%x", q.r.URL.Path, form.Hash)
		for _, p := range parts {
			fmt.Fprintf(hash, "\n%s", p)
		}
		return payd.Idempotency{Key: form.Key + "." + name, Hash: hash.Sum(nil)}
	}
	act(q, func() (*payd.Response, error) {
		resp, err := h.answerDispute(q, id, in, body, comment, step)
		if err != nil {
			// The rest of a refused file is not read: the connection
			// closes after the answer, rather than the server draining
			// up to 256 KiB of the body first.
			q.w.Header().Set("Connection", "close")
		}
		return resp, err
	}, func(*payd.Response) { q.redirect("disputes/"+id, "evidence_attached") },
		func(pe *payd.Error) { h.showDispute(q, httpStatusOf(pe), refusedIn(q.l, "evidence", pe)) })
}

// errOtherFile refuses a form sent again with another file than the one
// its first sending uploaded.
var errOtherFile = payd.Invalid("file", "this form was sent with another file already; open the page again to send this one")

func (h *Handler) answerDispute(q *req, id string, in payd.EvidenceUploadCreate, body io.Reader, comment string,
	step func(string, ...string) payd.Idempotency) (*payd.Response, error) {
	resp, err := h.svc.CreateEvidenceUpload(q.ctx, q.principal(), step("upload", in.FileName, in.ContentType), id, in)
	if err != nil {
		return nil, err
	}
	up, err := payd.Answer[*payd.EvidenceUploadJSON](resp)
	if err != nil {
		return nil, err
	}
	link, err := url.Parse(up.UploadURL)
	if err != nil {
		return nil, fmt.Errorf("read the upload link: %w", err)
	}
	_, err = h.svc.UploadEvidence(q.ctx, payd.EvidenceUpload{FileID: up.FileID, Expires: link.Query().Get("expires"),
		Sig: link.Query().Get("sig"), ContentType: in.ContentType, Length: -1, Body: body})
	if err != nil && resp.Replayed && payd.ErrorCodeOf(err) == payd.CodeInvalidState {
		// A repeated form finds its file uploaded by the first: the
		// link works once. It goes on to attach that file only if this
		// one is the same, by its digest; the dispute was checked to be
		// the shop's by the step replayed.
		err = sameFile(q, h.svc, id, up.FileID, body)
	}
	if err != nil {
		return nil, err
	}
	return h.svc.AttachEvidence(q.ctx, q.principal(), step("attach", up.FileID, comment), id, []string{up.FileID}, comment)
}

// sameFile reads body, bounded by the largest file, and reports
// errOtherFile unless its digest is the uploaded file's.
func sameFile(q *req, svc *payd.Service, disputeID, fileID string, body io.Reader) error {
	f, err := svc.EvidenceFileOf(q.ctx, disputeID, fileID)
	if err != nil {
		return err
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, io.LimitReader(body, payd.MaxEvidenceBytes+1)); err != nil {
		return payd.Invalid("file", "the file could not be read: %v", err)
	}
	if hex.EncodeToString(sum.Sum(nil)) != f.SHA256 {
		return errOtherFile
	}
	return nil
}
