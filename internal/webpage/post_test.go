package webpage_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paydhq/payd/internal/checkout"
	"github.com/paydhq/payd/internal/embed"
	"github.com/paydhq/payd/internal/linkpage"
	"github.com/paydhq/payd/internal/sandbank"
	"github.com/paydhq/payd/internal/webpage"
)

// body is a request body that counts what was read of it: its content,
// or without one an endless run of 'a'.
type body struct {
	r    io.Reader
	read int64
}

func (b *body) Read(p []byte) (int, error) {
	if b.r == nil {
		for i := range p {
			p[i] = 'a'
		}
		b.read += int64(len(p))
		return len(p), nil
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

func (b *body) Close() error { return nil }

const form = "application/x-www-form-urlencoded"

// TestReadForm posts bodies of every kind a stranger may send and counts
// what ReadForm reads of them: never more than FormLimit+1 bytes, and
// nothing of a body it refuses by its headers.
func TestReadForm(t *testing.T) {
	t.Parallel()
	full := "token=" + strings.Repeat("x", webpage.FormLimit-len("token="))
	cases := []struct {
		name        string
		contentType string
		content     string // "" with endless
		endless     bool
		length      int64 // Content-Length; -1 unknown
		status      int   // 0: read
		maxRead     int64
	}{
		{"Form", form, "token=t0ken&csrf=c5rf&amount=2+500%2C00", false, -1, 0, 1 << 10},
		{"FormWithCharset", form + "; charset=UTF-8", "token=t0ken", false, -1, 0, 1 << 10},
		{"FormOfTheLimit", form, full, false, int64(len(full)), 0, webpage.FormLimit + 1},
		{"FormOverTheLimit", form, full + "x", false, -1, 413, webpage.FormLimit + 1},
		{"EndlessForm", form, "", true, -1, 413, webpage.FormLimit + 1},
		{"LongFormDeclared", form, "", true, 30 << 20, 413, 0},
		{"Multipart", "multipart/form-data; boundary=b", "", true, 30 << 20, 415, 0},
		{"MultipartUnknownLength", "multipart/form-data; boundary=b", "", true, -1, 415, 0},
		{"Text", "text/plain", "token=t0ken", false, -1, 415, 0},
		{"NoContentType", "", "token=t0ken", false, -1, 415, 0},
		{"BadContentType", form + "; =", "token=t0ken", false, -1, 415, 0},
		{"Malformed", form, "token=%zz", false, -1, 400, 1 << 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &body{}
			if !tc.endless {
				b.r = strings.NewReader(tc.content)
			}
			r := httptest.NewRequest("POST", "/links/pl_00000000000000000000000000", b)
			r.ContentLength = tc.length
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			w := httptest.NewRecorder()
			err := webpage.ReadForm(w, r)
			fe, refused := errors.AsType[*webpage.FormError](err)
			switch {
			case tc.status == 0 && err != nil:
				t.Fatalf("ReadForm = %v, want the form read", err)
			case tc.status != 0 && (!refused || fe.Status != tc.status):
				t.Fatalf("ReadForm = %v, want a refusal with %d", err, tc.status)
			case tc.status != 0 && w.Header().Get("Connection") != "close":
				t.Errorf("a refused post keeps the connection open")
			case tc.status == 0 && r.PostForm.Get("token") == "":
				t.Errorf("the form read has no token: %v", r.PostForm)
			}
			if b.read > tc.maxRead {
				t.Errorf("read %d bytes of the body, want at most %d", b.read, tc.maxRead)
			}
		})
	}
}

// TestPayerPagesReadBoundedForms posts to every payer page that takes a
// post what such a page was once made to hold in memory — a 30 MiB
// multipart body, an endless form — at addresses of nothing that exists:
// each refuses it, in the browser's language, having read at most
// FormLimit+1 bytes and before it looks for the link, payment or attempt
// (the pages here have no service or store to look in).
func TestPayerPagesReadBoundedForms(t *testing.T) {
	t.Parallel()
	key, log := []byte("page key"), slog.New(slog.DiscardHandler)
	mux := http.NewServeMux()
	checkout.New(nil, key, log).Register(mux)
	sandbank.NewPages(nil, key, log).Register(mux)
	linkpage.New(nil, key, log, nil, nil).Register(mux)
	embed.New(nil, key, "", log).Register(mux)
	const attempt = "sbx_00000000000000000000000000"
	routes := []string{
		"/links/pl_00000000000000000000000000",
		"/checkout/ct_unknown",
		embed.PayPath + "ct_unknown?origin=https%3A%2F%2Fshop.example.com",
		"/sandbox/bank/" + attempt,
		"/sandbox/bank/" + attempt + "/3ds",
		"/sandbox/sbp/" + attempt,
		"/sandbox/kz-qr/" + attempt,
	}
	posts := []struct {
		name, contentType string
		length            int64
		status            int
		maxRead           int64
	}{
		{"Multipart", "multipart/form-data; boundary=x", 30 << 20, http.StatusUnsupportedMediaType, 0},
		{"EndlessForm", form, -1, http.StatusRequestEntityTooLarge, webpage.FormLimit + 1},
		{"LongFormDeclared", form, 30 << 20, http.StatusRequestEntityTooLarge, 0},
	}
	for _, route := range routes {
		for _, p := range posts {
			t.Run(p.name+route, func(t *testing.T) {
				t.Parallel()
				b := &body{}
				r := httptest.NewRequest("POST", route, b)
				r.ContentLength = p.length
				r.Header.Set("Content-Type", p.contentType)
				r.Header.Set("Accept-Language", "ru")
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, r)
				if b.read > p.maxRead {
					t.Fatalf("read %d bytes of the body, want at most %d", b.read, p.maxRead)
				}
				if w.Code != p.status || !strings.Contains(w.Body.String(), "Форма не принята") {
					t.Fatalf("status %d, want %d with the refusal page\n%s", w.Code, p.status, w.Body)
				}
			})
		}
	}
}
