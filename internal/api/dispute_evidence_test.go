package api_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

var (
	pdfHead = []byte("%PDF-1.7\n")
	pngHead = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}
	jpgHead = []byte{0xff, 0xd8, 0xff, 0xe0}
)

// fileOf is head followed by random bytes, n in all.
func fileOf(head []byte, n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	copy(b, head)
	return b
}

// reserve is step 1 for a file; it returns the file id and its upload URL.
func reserve(t *testing.T, c *paydtest.Client, disputeID, name, contentType string, size int) (string, string) {
	t.Helper()
	up := c.Post("/v1/disputes/"+disputeID+"/evidence/uploads", key(), map[string]any{
		"file_name": name, "content_type": contentType, "size_bytes": size}).Expect(t, 201).JSON(t)
	return up["file_id"].(string), up["upload_url"].(string)
}

// put uploads body to an upload URL; chunked hides its length.
func put(t *testing.T, url string, body []byte, contentType string, chunked bool) *paydtest.Response {
	t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // not a *bytes.Reader: no Content-Length
	}
	req, err := http.NewRequest("PUT", url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return &paydtest.Response{Request: req, Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// download fetches an evidence file as the operator does and returns the
// status, the bytes and their Content-Type.
func download(t *testing.T, env *paydtest.Env, disputeID, fileID string) (int, []byte, string) {
	t.Helper()
	req, err := http.NewRequest("GET", env.Admin.URL+"/admin/v1/disputes/"+disputeID+"/evidence/"+fileID, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+env.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw, resp.Header.Get("Content-Type")
}

// TestDisputeEvidence covers both evidence steps: the upload link and its
// checks (signature, expiry, one use, length, type by its first bytes),
// files larger than one stored chunk, attaching with rule 5's errors, and
// the operator's download of what was uploaded.
func TestDisputeEvidence(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM2(t, b)
		pay := paidPayment(t, c, "1000.00")
		d := openDispute(t, c, pay, map[string]any{"amount": rub("100.00")})
		id := d["id"].(string)
		up := "/v1/disputes/" + id + "/evidence/uploads"

		// Step 1 checks the declared file.
		for _, tt := range []struct {
			body  map[string]any
			param string
		}{
			{map[string]any{"content_type": "application/pdf", "size_bytes": 10}, "file_name"},
			{map[string]any{"file_name": "", "content_type": "application/pdf", "size_bytes": 10}, "file_name"},
			{map[string]any{"file_name": strings.Repeat("a", 256), "content_type": "application/pdf", "size_bytes": 10}, "file_name"},
			{map[string]any{"file_name": "a.txt", "content_type": "text/plain", "size_bytes": 10}, "content_type"},
			{map[string]any{"file_name": "a.pdf", "content_type": "application/pdf", "size_bytes": 0}, "size_bytes"},
			{map[string]any{"file_name": "a.pdf", "content_type": "application/pdf", "size_bytes": 10485761}, "size_bytes"},
			{map[string]any{"file_name": "a.pdf", "content_type": "application/pdf"}, "size_bytes"},
		} {
			c.Post(up, key(), tt.body).ExpectError(t, 400, payd.CodeInvalidRequest, tt.param)
		}
		c.Post("/v1/disputes/dsp_00000000000000000000000000/evidence/uploads", key(),
			map[string]any{"file_name": "a.pdf", "content_type": "application/pdf", "size_bytes": 10}).ExpectError(t, 404, payd.CodeNotFound, "")
		other := env.As(env.NewShop(payd.RegionRU, ""), false)
		other.Post(up, key(), map[string]any{"file_name": "a.pdf", "content_type": "application/pdf", "size_bytes": 10}).
			ExpectError(t, 404, payd.CodeNotFound, "")
		// A replay answers the same link.
		k := key()
		body := map[string]any{"file_name": "receipt.pdf", "content_type": "application/pdf", "size_bytes": 700 << 10}
		first := c.Post(up, k, body).Expect(t, 201).JSON(t)
		if again := c.Post(up, k, body).Expect(t, 200).JSON(t); again["upload_url"] != first["upload_url"] {
			t.Fatalf("replay answered another link: %v, then %v", first, again)
		}
		expires, _ := time.Parse(time.RFC3339, first["upload_expires_at"].(string))
		if want := env.Clock.Now().Add(time.Hour); expires.Sub(want).Abs() > 2*time.Second {
			t.Fatalf("upload_expires_at %v, want about %v", expires, want)
		}

		// The link: refused bodies leave the file reserved, so the link can
		// be used again; a good body is taken once.
		pdf, link := fileOf(pdfHead, 700<<10), first["upload_url"].(string)
		fileID := first["file_id"].(string)
		put(t, link, pdf[:len(pdf)-1], "", false).ExpectError(t, 400, payd.CodeInvalidRequest, "size_bytes")
		put(t, link, append(append([]byte{}, pdf...), 'x'), "", true).ExpectError(t, 400, payd.CodeInvalidRequest, "size_bytes")
		put(t, link, pdf[:len(pdf)-1], "", true).ExpectError(t, 400, payd.CodeInvalidRequest, "size_bytes")
		put(t, link, fileOf(pngHead, len(pdf)), "", false).ExpectError(t, 400, payd.CodeInvalidRequest, "content_type")
		put(t, link, pdf, "image/png", false).ExpectError(t, 400, payd.CodeInvalidRequest, "Content-Type")
		put(t, link+"x", pdf, "", false).ExpectError(t, 404, payd.CodeNotFound, "")
		put(t, strings.Replace(link, "expires=", "expires=1", 1), pdf, "", false).ExpectError(t, 404, payd.CodeNotFound, "")
		got := put(t, link, pdf, "application/pdf", true).Expect(t, 200).JSON(t)
		if got["file_id"] != fileID || got["size_bytes"] != float64(len(pdf)) || got["uploaded_at"] == nil {
			t.Fatalf("upload answer = %v", got)
		}
		put(t, link, pdf, "", false).ExpectError(t, 422, payd.CodeInvalidState, "")

		// The operator downloads exactly what was uploaded.
		if status, raw, ct := download(t, env, id, fileID); status != 200 || !bytes.Equal(raw, pdf) || ct != "application/pdf" {
			t.Fatalf("download: %d, %d bytes (%s), want 200 and the %d uploaded bytes", status, len(raw), ct, len(pdf))
		}

		// An expired link is gone; a reserved, never uploaded file cannot
		// be attached.
		staleID, stale := reserve(t, c, id, "photo.jpg", "image/jpeg", 64)
		pngID, pngLink := reserve(t, c, id, "screen.png", "image/png", 32)
		put(t, pngLink, fileOf(pngHead, 32), "", false).Expect(t, 200)
		jpgID, jpgLink := reserve(t, c, id, "photo.jpg", "image/jpeg", 64)
		put(t, jpgLink, fileOf(jpgHead, 64), "image/jpeg", false).Expect(t, 200)

		// Step 2.
		ev := "/v1/disputes/" + id + "/evidence"
		for _, tt := range []struct {
			body  map[string]any
			param string
		}{
			{map[string]any{}, "file_ids"},
			{map[string]any{"file_ids": []string{}}, "file_ids"},
			{map[string]any{"file_ids": []string{"nope"}}, "file_ids.0"},
			{map[string]any{"file_ids": []string{fileID, "evd_00000000000000000000000000"}}, "file_ids.1"},
			{map[string]any{"file_ids": []string{staleID}}, "file_ids.0"},
			{map[string]any{"file_ids": []string{fileID}, "comment": strings.Repeat("c", 4097)}, "comment"},
			{map[string]any{"file_ids": strings.Split(strings.Repeat(fileID+",", 11), ",")[:11]}, "file_ids"},
		} {
			c.Post(ev, key(), tt.body).ExpectError(t, 400, payd.CodeInvalidRequest, tt.param)
		}
		// Another dispute's file is unknown here.
		otherDispute := openDispute(t, c, pay, map[string]any{"amount": rub("10.00")})["id"].(string)
		foreignID, foreignLink := reserve(t, c, otherDispute, "x.png", "image/png", 16)
		put(t, foreignLink, fileOf(pngHead, 16), "", false).Expect(t, 200)
		c.Post(ev, key(), map[string]any{"file_ids": []string{foreignID}}).ExpectError(t, 400, payd.CodeInvalidRequest, "file_ids.0")

		attached := c.Post(ev, key(), map[string]any{"file_ids": []string{fileID, pngID, fileID}, "comment": "Delivery receipt and the chat"}).
			Expect(t, 200).JSON(t)
		if attached["status"] != "opened" || len(attached["evidence"].([]any)) != 2 {
			t.Fatalf("after attaching = %v", attached)
		}
		first0 := attached["evidence"].([]any)[0].(map[string]any)
		if first0["file_id"] != fileID || first0["file_name"] != "receipt.pdf" || first0["content_type"] != "application/pdf" ||
			first0["size_bytes"] != float64(len(pdf)) {
			t.Fatalf("evidence entry = %v", first0)
		}
		// Again with the same files: nothing doubles.
		again := c.Post(ev, key(), map[string]any{"file_ids": []string{pngID, jpgID}}).Expect(t, 200).JSON(t)
		if len(again["evidence"].([]any)) != 3 {
			t.Fatalf("after the second attach = %v", again)
		}

		// Submitted: evidence is closed (invalid_state), the status moved
		// only by the operator.
		env.AdminDo("POST", "/admin/v1/disputes/"+otherDispute+"/submit", nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		env.AdminDo("POST", "/admin/v1/disputes/"+id+"/submit", nil).Expect(t, 200)
		if got := c.Get("/v1/disputes/" + id).JSON(t)["status"]; got != "submitted" {
			t.Fatalf("status after submit = %v", got)
		}
		c.Post(up, key(), map[string]any{"file_name": "a.pdf", "content_type": "application/pdf", "size_bytes": 10}).
			ExpectError(t, 422, payd.CodeInvalidState, "")
		c.Post(ev, key(), map[string]any{"file_ids": []string{jpgID}}).ExpectError(t, 422, payd.CodeInvalidState, "")

		// Past the deadline: evidence_deadline_passed first, for the
		// expired dispute too, and links stop working.
		env.Clock.Advance(8 * 24 * time.Hour)
		waitDispute(t, c, otherDispute, "expired")
		put(t, stale, fileOf(jpgHead, 64), "", false).ExpectError(t, 404, payd.CodeNotFound, "")
		c.Post("/v1/disputes/"+otherDispute+"/evidence/uploads", key(),
			map[string]any{"file_name": "a.pdf", "content_type": "application/pdf", "size_bytes": 10}).ExpectError(t, 409, payd.CodeEvidenceDeadlinePassed, "")
		c.Post("/v1/disputes/"+otherDispute+"/evidence", key(), map[string]any{"file_ids": []string{foreignID}}).
			ExpectError(t, 409, payd.CodeEvidenceDeadlinePassed, "")
		// A submitted dispute past its deadline: the deadline still comes
		// first.
		c.Post(ev, key(), map[string]any{"file_ids": []string{jpgID}}).ExpectError(t, 409, payd.CodeEvidenceDeadlinePassed, "")
		checkLedger(t, env)
	})
}

// TestEvidenceOfTheLargestSize uploads a file of exactly the contract's
// limit (10485760 bytes) through the link and reads it back whole: the
// limit is inclusive and the chunked storage keeps every byte.
func TestEvidenceOfTheLargestSize(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM2(t, b)
		pay := paidPayment(t, c, "1000.00")
		id := openDispute(t, c, pay, map[string]any{"amount": rub("10.00")})["id"].(string)
		const limit = 10 << 20
		jpg := fileOf(jpgHead, limit)
		fileID, link := reserve(t, c, id, "scan.jpg", "image/jpeg", limit)
		put(t, link, jpg, "image/jpeg", true).Expect(t, 200)
		if status, raw, _ := download(t, env, id, fileID); status != 200 || !bytes.Equal(raw, jpg) {
			t.Fatalf("download: %d, %d bytes, want the %d uploaded", status, len(raw), limit)
		}
		c.Post("/v1/disputes/"+id+"/evidence", key(), map[string]any{"file_ids": []string{fileID}}).Expect(t, 200)
	})
}
