package api_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestEvidenceWaitingIsBounded: a dispute's files, attached and waiting,
// are at most MaxEvidenceFiles, and the eleventh is refused with 400 (the
// contract's answer for more than 10 files); the shop contour's waiting
// bytes are bounded by MaxEvidenceWaitingBytes, past which step 1 answers
// 429 with Retry-After. Both store nothing. Files never attached are
// removed with their bytes once their upload link has expired, which
// frees both bounds; attached files stay.
func TestEvidenceWaitingIsBounded(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM2(t, b)
		pay := paidPayment(t, c, "1000.00")
		id := openDispute(t, c, pay, map[string]any{"amount": rub("100.00")})["id"].(string)
		up := "/v1/disputes/" + id + "/evidence/uploads"
		small := map[string]any{"file_name": "a.pdf", "content_type": "application/pdf", "size_bytes": 16}

		// One file uploaded and attached, then files waiting up to the
		// dispute's ten.
		kept, link := reserve(t, c, id, "kept.pdf", "application/pdf", 16)
		put(t, link, fileOf(pdfHead, 16), "application/pdf", false).Expect(t, 200)
		c.Post("/v1/disputes/"+id+"/evidence", key(), map[string]any{"file_ids": []string{kept}}).Expect(t, 200)
		var waiting []string
		for range payd.MaxEvidenceFiles - 1 {
			f, _ := reserve(t, c, id, "a.pdf", "application/pdf", 16)
			waiting = append(waiting, f)
		}
		c.Post(up, key(), small).ExpectError(t, 400, payd.CodeInvalidRequest, "dispute_id")

		// The shop's waiting bytes are bounded across its disputes.
		pay2 := paidPayment(t, c, "1000.00")
		id2 := openDispute(t, c, pay2, map[string]any{"amount": rub("100.00")})["id"].(string)
		full := map[string]any{"file_name": "big.pdf", "content_type": "application/pdf", "size_bytes": payd.MaxEvidenceBytes}
		room := payd.MaxEvidenceWaitingBytes - len(waiting)*16
		for ; room >= payd.MaxEvidenceBytes; room -= payd.MaxEvidenceBytes {
			c.Post("/v1/disputes/"+id2+"/evidence/uploads", key(), full).Expect(t, 201)
		}
		r := c.Post("/v1/disputes/"+id2+"/evidence/uploads", key(), full)
		r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 3600 {
			t.Fatalf("Retry-After %q, want the seconds until the first waiting link expires", r.Header.Get("Retry-After"))
		}

		// Once the links expire, the periodic sweep (run when the test
		// clock moves) removes every unattached file and its bytes; the
		// attached one stays, and the bounds are free.
		env.Clock.Advance(payd.EvidenceUploadTTL + time.Minute)
		for _, id := range waiting {
			paydtest.Eventually(t, "file "+id+" to be removed after its link expired", func() bool {
				err := env.Instance.Store.View(t.Context(), func(tx payd.Tx) error {
					_, err := tx.EvidenceFileGet(t.Context(), id)
					return err
				})
				return errors.Is(err, payd.ErrNoRows)
			})
		}
		c.Post("/v1/disputes/"+id+"/evidence", key(), map[string]any{"file_ids": []string{waiting[0]}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "file_ids.0")
		if status, data, _ := download(t, env, id, kept); status != 200 || len(data) != 16 {
			t.Fatalf("attached file after the sweep: %d, %d bytes", status, len(data))
		}
		c.Post(up, key(), small).Expect(t, 201)
		c.Post("/v1/disputes/"+id2+"/evidence/uploads", key(), full).Expect(t, 201)
	})
}

// TestEvidenceEleventhFile: with ten files uploaded for a dispute, step 1
// of an eleventh is the contract's 400 invalid_request with parameter,
// whether the ten are attached or wait to be (no wait lifts the bound for
// attached files, so 429 would ask for retries that never succeed); the
// refusal stores nothing.
func TestEvidenceEleventhFile(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM2(t, b)
		for _, attach := range []bool{false, true} {
			pay := paidPayment(t, c, "1000.00")
			id := openDispute(t, c, pay, map[string]any{"amount": rub("100.00")})["id"].(string)
			var files []string
			for i := range payd.MaxEvidenceFiles {
				f, link := reserve(t, c, id, "f"+strconv.Itoa(i)+".pdf", "application/pdf", 16)
				put(t, link, fileOf(pdfHead, 16), "application/pdf", false).Expect(t, 200)
				files = append(files, f)
			}
			if attach {
				c.Post("/v1/disputes/"+id+"/evidence", key(), map[string]any{"file_ids": files}).Expect(t, 200)
			}
			r := c.Post("/v1/disputes/"+id+"/evidence/uploads", key(),
				map[string]any{"file_name": "eleventh.pdf", "content_type": "application/pdf", "size_bytes": 16})
			r.ExpectError(t, 400, payd.CodeInvalidRequest, "dispute_id")
			if r.Header.Get("Retry-After") != "" {
				t.Errorf("attached %v: a 400 with Retry-After %q", attach, r.Header.Get("Retry-After"))
			}
			var w payd.EvidenceWaitingSum
			err := env.Instance.Store.View(t.Context(), func(tx payd.Tx) (err error) {
				w, err = tx.EvidenceWaiting(t.Context(), &payd.EvidenceWaitingParams{DisputeID: id, Now: env.Clock.Now()})
				return err
			})
			if want := map[bool]int{false: payd.MaxEvidenceFiles, true: 0}[attach]; err != nil || w.Files != want {
				t.Errorf("attached %v: %d files waiting after the refusal (%v), want %d", attach, w.Files, err, want)
			}
		}
	})
}

// TestEvidenceFileNameBidi: a file name with bidirectional controls is
// refused, so that an operator sees the name the bytes were sent under.
func TestEvidenceFileNameBidi(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		_, _, c := startM2(t, b)
		pay := paidPayment(t, c, "1000.00")
		id := openDispute(t, c, pay, map[string]any{"amount": rub("100.00")})["id"].(string)
		for _, name := range []string{"invoice\u202Efdp.exe", "a\u2066b.pdf", "a\u200fb.pdf", "\u061cx.pdf", "a\u202Ab\u202C.pdf"} {
			c.Post("/v1/disputes/"+id+"/evidence/uploads", key(), map[string]any{
				"file_name": name, "content_type": "application/pdf", "size_bytes": 10}).ExpectError(t, 400, payd.CodeInvalidRequest, "file_name")
		}
		// Right-to-left text itself is a name like any other.
		reserve(t, c, id, "חשבונית.pdf", "application/pdf", 10)
		reserve(t, c, id, "فاتورة.pdf", "application/pdf", 10)
	})
}
