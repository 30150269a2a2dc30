package webpage

import (
	"errors"
	"mime"
	"net/http"
)

// FormLimit is the most a payer page reads of a posted body: 8 KiB. The
// pages' own forms are a few hundred bytes (a token and its MAC, a
// button's name, a sum or a six-digit code); a longer body is none of
// theirs, and every page that takes a post is public.
const FormLimit = 8 << 10

// FormError is a post that ReadForm refused; Status is the answer, with a
// page saying to open the page again.
type FormError struct {
	// Status is 415 for a body that is not a url-encoded form, 413 for
	// one longer than FormLimit, 400 for one that does not parse.
	Status int
	reason string
}

func (e *FormError) Error() string { return e.reason }

// ReadForm reads the form of a payer page's post into r.PostForm, or
// refuses it with a *FormError before the page looks at anything else:
// the body must be application/x-www-form-urlencoded (the only encoding
// of the pages' forms; a multipart body is refused unread) and at most
// FormLimit bytes, of which no more than FormLimit+1 are ever read, so
// an unknown address costs no more than a known one. A refused post
// closes the connection, so the server does not read the rest of the
// body after the answer either.
func ReadForm(w http.ResponseWriter, r *http.Request) error {
	refuse := func(status int, reason string) error {
		w.Header().Set("Connection", "close")
		return &FormError{Status: status, reason: reason}
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return refuse(http.StatusUnsupportedMediaType, "the body is not a url-encoded form")
	}
	if r.ContentLength > FormLimit {
		return refuse(http.StatusRequestEntityTooLarge, "the form is too long")
	}
	r.Body = http.MaxBytesReader(w, r.Body, FormLimit)
	if err := r.ParseForm(); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return refuse(http.StatusRequestEntityTooLarge, "the form is too long")
		}
		return refuse(http.StatusBadRequest, "the form does not parse")
	}
	return nil
}
