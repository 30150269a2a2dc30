package dashboard_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A dispute is answered from its page: the file sent from the browser goes
// through the API's two-step upload, is attached with the comment, and
// comes back byte for byte through the operator's download. The form sent
// twice attaches one file; a viewer's upload posted by hand is refused and
// attaches nothing; a file of another type is refused next to the file
// input.
func TestDisputeEvidenceFromThePage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b)
		pay := paidPayment(t, c, "1000.00", "order-dispute", false)
		d := c.Post("/v1/test/payments/"+pay+"/disputes", idemKey(), map[string]any{
			"amount": map[string]any{"value": "300.00", "currency": "RUB"}, "reason_code": "13.1",
			"evidence_deadline_seconds": 3*86400 + 90*60}).Expect(t, 201).JSON(t)
		id := d["id"].(string)

		support := signedIn(t, env, shop, payd.RoleSupport)
		list := support.get("/dashboard/test/disputes")
		if list.status != 200 || !strings.Contains(list.body, `href="/dashboard/test/disputes/`+id+`"`) {
			t.Fatalf("disputes page = %d\n%s", list.status, list.body)
		}
		if p := support.get("/dashboard/test/disputes?status=won"); strings.Contains(p.body, id) || !strings.Contains(p.body, `id="no-disputes"`) {
			t.Fatalf("the won filter shows an opened dispute")
		}
		if p := support.get("/dashboard/test/disputes?status=opened"); !strings.Contains(p.body, id) {
			t.Fatalf("the opened filter lost the dispute")
		}
		page := support.get("/dashboard/test/disputes/" + id)
		if page.status != 200 || !strings.Contains(page.body, `id="time-left">3 days 1 hour left`) ||
			!strings.Contains(page.body, `id="no-evidence"`) || !strings.Contains(page.body, `enctype="multipart/form-data"`) {
			t.Fatalf("dispute page = %d\n%s", page.status, page.body)
		}

		// A file of more than one stored chunk (256 KiB).
		file := make([]byte, 700<<10)
		_, _ = rand.Read(file)
		copy(file, "%PDF-1.7\n")
		form := formOf(t, page.body, "evidence-form")
		form.Set("comment", "Delivered on 3 March, signed receipt attached.")
		for range 2 {
			p := support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "receipt.pdf", "application/pdf", file)
			if p.status != http.StatusSeeOther || p.location != "/dashboard/test/disputes/"+id+"?done=evidence_attached" {
				t.Fatalf("evidence post = %d to %q\n%s", p.status, p.location, p.body)
			}
		}
		// The same form sent again with another file of the same name
		// is refused: it would attach the first file in its place.
		otherFile := bytes.Clone(file)
		otherFile[len(otherFile)-1] ^= 0xff
		if p := support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "receipt.pdf", "application/pdf", otherFile); p.status != http.StatusBadRequest || !strings.Contains(p.body, "sent with another file") {
			t.Fatalf("the form again with another file = %d\n%.2000s", p.status, p.body)
		}
		got := c.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)
		ev := got["evidence"].([]any)
		if len(ev) != 1 {
			t.Fatalf("%d evidence files after a double submit, want 1: %v", len(ev), ev)
		}
		f := ev[0].(map[string]any)
		if f["file_name"] != "receipt.pdf" || f["content_type"] != "application/pdf" || f["size_bytes"] != float64(len(file)) {
			t.Fatalf("evidence = %v", f)
		}
		// One upload, one attachment in the audit log: the file, then the
		// dispute it was attached to.
		ups, att := audited(t, env, shop.MerchantID, "create evidence upload"), audited(t, env, shop.MerchantID, "attach evidence")
		if len(ups) != 1 || ups[0].ObjectID != f["file_id"] || len(att) != 1 || att[0].ObjectID != id || att[0].Addr == "" {
			t.Errorf("audit entries of the evidence = %s%s, want the file %v and the dispute %s", entries(ups), entries(att), f["file_id"], id)
		}
		req, _ := http.NewRequest("GET", env.Admin.URL+"/admin/v1/disputes/"+id+"/evidence/"+f["file_id"].(string), nil)
		req.Header.Set("Authorization", "Bearer "+env.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		back, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(back, file) {
			t.Fatalf("operator download = %d, %d bytes, same: %v", resp.StatusCode, len(back), bytes.Equal(back, file))
		}
		page = support.get("/dashboard/test/disputes/" + id + "?done=evidence_attached")
		if !strings.Contains(page.body, "The file was uploaded and attached to the dispute.") || !strings.Contains(page.body, "receipt.pdf") ||
			!strings.Contains(page.body, "Delivered on 3 March") {
			t.Fatalf("dispute page after the upload lacks the file or the comment\n%s", page.body)
		}

		// A text file is refused in the rule's words, next to the file
		// input, and nothing is attached.
		form = formOf(t, page.body, "evidence-form")
		p := support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "notes.txt", "text/plain", []byte("just words"))
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="evidence-error"`) || !strings.Contains(p.body, "content_type must be") {
			t.Fatalf("text file = %d\n%s", p.status, p.body)
		}

		// A file above the service's 10 MiB is refused as it streams past
		// the bound, and the room reserved for it goes with it.
		form = formOf(t, support.get("/dashboard/test/disputes/"+id).body, "evidence-form")
		big := make([]byte, payd.MaxEvidenceBytes+1)
		copy(big, "%PDF-1.7\n")
		p = support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "big.pdf", "application/pdf", big)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="evidence-error"`) || !strings.Contains(p.body, "size_bytes must be") {
			t.Fatalf("file above 10 MiB = %d\n%.2000s", p.status, p.body)
		}
		var w payd.EvidenceWaitingSum
		if err := env.Instance.Store.View(t.Context(), func(tx payd.Tx) (err error) {
			w, err = tx.EvidenceWaiting(t.Context(), &payd.EvidenceWaitingParams{DisputeID: id, Now: env.Clock.Now()})
			return err
		}); err != nil || w.Files != 0 {
			t.Fatalf("%d files wait after the refused uploads (%v), want none", w.Files, err)
		}
		// Fields beyond a form's bound are refused before the file is
		// read.
		form = formOf(t, support.get("/dashboard/test/disputes/"+id).body, "evidence-form")
		form.Set("comment", strings.Repeat("a", 20<<10))
		if p := support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "x.pdf", "application/pdf", file); p.status != http.StatusRequestEntityTooLarge {
			t.Fatalf("fields beyond the bound = %d", p.status)
		}

		viewer := signedIn(t, env, shop, payd.RoleViewer)
		if vp := viewer.get("/dashboard/test/disputes/" + id); vp.status != 200 || strings.Contains(vp.body, `id="evidence-form"`) {
			t.Fatalf("viewer's dispute page = %d, with the evidence form: %v", vp.status, strings.Contains(vp.body, `id="evidence-form"`))
		}
		p = viewer.postFile("/dashboard/test/disputes/"+id+"/evidence", byHand(t, viewer), "file", "forged.pdf", "application/pdf", file)
		if p.status != http.StatusForbidden || !strings.Contains(p.body, "Your role does not allow this") {
			t.Fatalf("viewer's upload by hand = %d\n%s", p.status, p.body)
		}
		// Without the CSRF token a support user's upload is refused too.
		form = formOf(t, support.get("/dashboard/test/disputes/"+id).body, "evidence-form")
		form.Set("csrf", "forged")
		if p := support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "x.pdf", "application/pdf", file); p.status != http.StatusForbidden {
			t.Fatalf("upload with a forged CSRF token = %d", p.status)
		}
		if n := len(c.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)["evidence"].([]any)); n != 1 {
			t.Fatalf("%d evidence files after the refused posts, want 1", n)
		}
	})
}

// Before stage M2 there are no disputes: the pages answer 404.
func TestDisputesNeedStageM2(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	v := signedIn(t, env, shop, payd.RoleAdmin)
	for _, path := range []string{"disputes", "disputes/dsp_x", "links", "payouts"} {
		if p := v.get("/dashboard/test/" + path); p.status != http.StatusNotFound {
			t.Errorf("%s at stage v1 = %d, want 404", path, p.status)
		}
	}
}

// gatedFile is a file a browser sends slowly: the first open bytes at
// once, the rest only once release is closed. served counts what the
// server has read.
type gatedFile struct {
	data    []byte
	open    int
	release <-chan struct{}
	off     int
	served  atomic.Int64
}

func (g *gatedFile) Read(p []byte) (int, error) {
	if g.off >= len(g.data) {
		return 0, io.EOF
	}
	end := len(g.data)
	if g.off < g.open {
		end = g.open
	} else {
		<-g.release
	}
	n := copy(p, g.data[g.off:end])
	g.off += n
	g.served.Store(int64(g.off))
	return n, nil
}

// Uploads from the page reserve their room before they read the file:
// with every file held back after its first bytes, the uploads that fit
// the shop's waiting bytes hold reservations and the others are refused
// (429, the shop's bound), none having read past what the page sniffs.
// Released, the reserved ones stream, are attached, and the room they
// reserved for the largest file shrinks to their size.
func TestEvidenceUploadsReserveBeforeReading(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b)
		open := func(order string) string {
			pay := paidPayment(t, c, "1000.00", order, false)
			return c.Post("/v1/test/payments/"+pay+"/disputes", idemKey(), map[string]any{
				"amount": map[string]any{"value": "300.00", "currency": "RUB"}}).Expect(t, 201).JSON(t)["id"].(string)
		}
		id, other := open("order-uploads"), open("order-other")
		// Another dispute of the shop holds a full file's room, so 9 of
		// the shop's 10 remain.
		c.Post("/v1/disputes/"+other+"/evidence/uploads", idemKey(), map[string]any{
			"file_name": "big.pdf", "content_type": "application/pdf", "size_bytes": payd.MaxEvidenceBytes}).Expect(t, 201)
		const posts, fits = 12, 9
		const sniffed = 8 << 10 // the most the browser sends before release
		support := signedIn(t, env, shop, payd.RoleSupport)
		release := make(chan struct{})
		var once sync.Once
		t.Cleanup(func() { once.Do(func() { close(release) }) })
		type answer struct {
			status int
			body   string
		}
		answers := make(chan answer, posts)
		files := make([]*gatedFile, posts)
		for i := range posts {
			form := formOf(t, support.get("/dashboard/test/disputes/"+id).body, "evidence-form")
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			for k := range form {
				_ = mw.WriteField(k, form.Get(k))
			}
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="receipt-%02d.pdf"`, i))
			h.Set("Content-Type", "application/pdf")
			if _, err := mw.CreatePart(h); err != nil {
				t.Fatal(err)
			}
			head := buf.Len()
			_ = mw.Close()
			prefix, suffix := bytes.Clone(buf.Bytes()[:head]), bytes.Clone(buf.Bytes()[head:])
			data := make([]byte, 64<<10)
			_, _ = rand.Read(data)
			copy(data, "%PDF-1.7\n")
			files[i] = &gatedFile{data: data, open: sniffed, release: release}
			req, _ := http.NewRequest("POST", env.API.URL+"/dashboard/test/disputes/"+id+"/evidence",
				io.MultiReader(bytes.NewReader(prefix), files[i], bytes.NewReader(suffix)))
			// A browser says the length of a form it sends.
			req.ContentLength = int64(len(prefix) + len(data) + len(suffix))
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("Accept-Language", "en")
			go func() {
				resp, err := support.c.Do(req)
				if err != nil {
					answers <- answer{status: -1, body: err.Error()}
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				answers <- answer{status: resp.StatusCode, body: string(b)}
			}()
		}
		waiting := func() payd.EvidenceWaitingSum {
			var w payd.EvidenceWaitingSum
			err := env.Instance.Store.View(t.Context(), func(tx payd.Tx) (err error) {
				w, err = tx.EvidenceWaiting(t.Context(), &payd.EvidenceWaitingParams{DisputeID: id, Now: env.Clock.Now()})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		// With every file held back, the reservations are made and the
		// refusals answered.
		var refused []answer
		paydtest.Eventually(t, fmt.Sprintf("%d reservations and %d refusals before any file is read", fits, posts-fits), func() bool {
			for len(answers) > 0 {
				refused = append(refused, <-answers)
			}
			return len(refused) >= posts-fits && waiting().Files == fits
		})
		if len(refused) != posts-fits {
			t.Fatalf("%d answers before the files were sent, want the %d refused: %+v", len(refused), posts-fits, refused)
		}
		for _, a := range refused {
			if a.status != http.StatusTooManyRequests || !strings.Contains(a.body, "bytes of evidence waiting") {
				t.Errorf("refused upload = %d, want 429 naming the shop's waiting bytes\n%.1500s", a.status, a.body)
			}
		}
		if w := waiting(); w.Bytes != fits*payd.MaxEvidenceBytes {
			t.Errorf("reserved %d bytes for %d uploads, want the largest file's room each (%d)", w.Bytes, w.Files, fits*payd.MaxEvidenceBytes)
		}
		for i, f := range files {
			if n := f.served.Load(); n > sniffed {
				t.Errorf("upload %d read %d bytes of its file before release, want at most %d", i, n, sniffed)
			}
		}

		once.Do(func() { close(release) })
		for range fits {
			a := <-answers
			if a.status != http.StatusSeeOther {
				t.Errorf("released upload = %d\n%.1500s", a.status, a.body)
			}
		}
		ev := c.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)["evidence"].([]any)
		if len(ev) != fits {
			t.Fatalf("%d files attached, want %d", len(ev), fits)
		}
		for _, e := range ev {
			if size := e.(map[string]any)["size_bytes"]; size != float64(64<<10) {
				t.Errorf("attached file of %v bytes, want %d", size, 64<<10)
			}
		}
		if w := waiting(); w.Files != 0 || w.Bytes != 0 {
			t.Errorf("after the uploads %d files, %d bytes wait, want none", w.Files, w.Bytes)
		}
	})
}
