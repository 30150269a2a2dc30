package httpapi

import (
	"bytes"
	"net/http"
)

// Recorder keeps what a handler wrote, for a request served in-process:
// a four-eyes proposal's request served again (operator), a back-office
// page's call of the operator API (office). The first status written
// stands; a handler that writes a body without one answered 200.
type Recorder struct {
	Status int
	header http.Header
	Body   bytes.Buffer
}

// Header is the answer's header.
func (w *Recorder) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}

func (w *Recorder) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.Body.Write(b)
}

// WriteHeader records status, the first one only.
func (w *Recorder) WriteHeader(status int) {
	if w.Status == 0 {
		w.Status = status
	}
}
