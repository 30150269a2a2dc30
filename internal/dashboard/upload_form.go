package dashboard

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
)

// maxUpload bounds a post that carries a file (evidence): the largest file
// the service takes and room for the form's other fields and the
// multipart framing.
const maxUpload = payd.MaxEvidenceBytes + 64<<10

// isMultipart reports a post sent as multipart/form-data: a form with a
// file input.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

type uploadKey struct{}

var errFieldsTooLarge = errors.New("the form's fields are too large")

// readUploadForm reads the fields of a multipart post that come before its
// file into r.PostForm, bounded as any form's, and leaves the file unread
// for the handler: the session, the CSRF token and the role are checked
// before a byte of the file is read, so a visitor who may not upload
// cannot make the service store anything. Browsers send a form's fields
// in the order of the page, so upload forms put their hidden fields
// before the file input.
func readUploadForm(w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	r.PostForm = url.Values{}
	r.Form = r.URL.Query()
	budget := int64(maxForm)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return r, nil
		}
		if err != nil {
			return nil, err
		}
		if part.FileName() != "" {
			return r.WithContext(context.WithValue(r.Context(), uploadKey{}, part)), nil
		}
		b, err := io.ReadAll(io.LimitReader(part, budget+1))
		if err != nil {
			return nil, err
		}
		if budget -= int64(len(b)); budget < 0 {
			return nil, errFieldsTooLarge
		}
		r.PostForm.Add(part.FormName(), string(b))
		r.Form.Add(part.FormName(), string(b))
	}
}

// uploadedFile is the file part of a multipart post, unread, or nil when
// the form carried no file.
func uploadedFile(r *http.Request) *multipart.Part {
	p, _ := r.Context().Value(uploadKey{}).(*multipart.Part)
	return p
}
