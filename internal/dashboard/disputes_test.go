package dashboard_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"strings"
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
		if page.status != 200 || !strings.Contains(page.body, `id="time-left">3 d 1 h left`) ||
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

		// A file above the service's 10 MiB is refused before anything is
		// reserved.
		form = formOf(t, support.get("/dashboard/test/disputes/"+id).body, "evidence-form")
		big := make([]byte, payd.MaxEvidenceBytes+1)
		copy(big, "%PDF-1.7\n")
		p = support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "big.pdf", "application/pdf", big)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="evidence-error"`) || !strings.Contains(p.body, "size_bytes must be") {
			t.Fatalf("file above 10 MiB = %d\n%.2000s", p.status, p.body)
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
