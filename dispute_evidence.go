package payd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// Evidence limits (Limits: Evidence).
const (
	MaxEvidenceBytes = 10 << 20
	MaxEvidenceFiles = 10
	// EvidenceUploadTTL is how long an upload_url works, at most until the
	// evidence deadline.
	EvidenceUploadTTL = time.Hour
	// evidenceChunkBytes is the most of an upload held in memory at once,
	// and the size of each stored chunk.
	evidenceChunkBytes = 256 << 10
	// evidenceLease keeps one upload of a file running at a time; an upload
	// that dies (a crashed instance) frees the file when it ends.
	evidenceLease = 10 * time.Minute
	// MaxEvidenceWaitingBytes bounds the declared bytes a shop's contour
	// may have waiting to be attached (reserved, uploading or uploaded,
	// link not expired): ten full files. A dispute's files, attached and
	// waiting, are bounded by MaxEvidenceFiles.
	MaxEvidenceWaitingBytes = 10 * MaxEvidenceBytes
)

// evidenceMagic is how each accepted type begins.
var evidenceMagic = map[string][]byte{
	"application/pdf": []byte("%PDF-"),
	"image/jpeg":      {0xff, 0xd8, 0xff},
	"image/png":       {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'},
}

// EvidenceUploadCreate is step 1 of an evidence upload after its shape was
// checked.
type EvidenceUploadCreate struct {
	FileName    string
	ContentType string
	SizeBytes   int64
	// SizeUpTo makes SizeBytes the most the file may be rather than its
	// size: the upload's body, however long up to it, sets the size. The
	// dashboard's form uses it, since a multipart body tells a file's size
	// only once all of it has been read, and room must be reserved before
	// that. A reservation of this kind serves one upload: if the upload
	// fails, the reservation goes with it.
	SizeUpTo bool
}

// Check validates step 1's fields (Disputes, rule 5: type, size, file
// name).
func (in EvidenceUploadCreate) Check() error {
	// checkText refuses bidirectional controls too: a name must show as
	// the one the bytes were sent under.
	if err := checkText("file_name", in.FileName, 1, 255); err != nil {
		return err
	}
	if _, ok := evidenceMagic[in.ContentType]; !ok {
		return Invalid("content_type", "content_type must be application/pdf, image/jpeg or image/png")
	}
	if in.SizeBytes < 1 || in.SizeBytes > MaxEvidenceBytes {
		return Invalid("size_bytes", "size_bytes must be 1..%d (10 MiB)", MaxEvidenceBytes)
	}
	return nil
}

// EvidenceUploadJSON is the contract's DisputeEvidenceUpload.
type EvidenceUploadJSON struct {
	FileID          string    `json:"file_id"`
	UploadURL       string    `json:"upload_url"`
	UploadExpiresAt time.Time `json:"upload_expires_at"`
}

// evidenceOpen is Disputes rule 5 in its order: a passed deadline (an
// expired dispute too) answers evidence_deadline_passed before a status
// that takes no evidence answers invalid_state.
func (s *Service) evidenceOpen(d *Dispute) error {
	if d.Status == DisputeExpired || s.clock.Now().After(d.EvidenceDeadlineAt) {
		return Errorf(CodeEvidenceDeadlinePassed, "the evidence deadline %s has passed", d.EvidenceDeadlineAt.Format(time.RFC3339))
	}
	if !d.Status.AcceptsEvidence() {
		return Errorf(CodeInvalidState, "a dispute in status %s takes no more evidence", d.Status)
	}
	return nil
}

// CreateEvidenceUpload is step 1: it reserves a file of the dispute and
// answers a signed, one-time upload_url on the service's own API, valid
// EvidenceUploadTTL and never past the evidence deadline.
func (s *Service) CreateEvidenceUpload(ctx context.Context, p *Principal, idem Idempotency, disputeID string, in EvidenceUploadCreate) (*Response, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	return s.idempotent(ctx, AuditCreateEvidence, p, idem, func(tx Tx) (Outcome, any, error) {
		// The shop first, then the dispute: the shop's lock makes its
		// waiting bytes exact (evidenceRoom), also on PostgreSQL where
		// two disputes of a shop take reservations at once.
		if _, err := tx.ShopGetForUpdate(ctx, p.Shop.ID); err != nil {
			return 0, nil, err
		}
		d, err := scopedDispute(ctx, tx, p, disputeID, true)
		if err != nil {
			return 0, nil, err
		}
		if err := s.evidenceOpen(d); err != nil {
			return 0, nil, err
		}
		now := s.clock.Now()
		if err := evidenceRoom(ctx, tx, d, in.SizeBytes, now); err != nil {
			return 0, nil, err
		}
		exp := now.Add(EvidenceUploadTTL)
		if d.EvidenceDeadlineAt.Before(exp) {
			exp = d.EvidenceDeadlineAt
		}
		exp = exp.Truncate(time.Second)
		f := &EvidenceFile{ID: s.ids.NewFor(PrefixEvidence, now, d.MerchantID), DisputeID: d.ID, ShopID: d.ShopID, Test: d.Test,
			FileName: in.FileName, ContentType: in.ContentType, SizeBytes: in.SizeBytes, SizeUpTo: in.SizeUpTo,
			State: EvidenceReserved, CreatedAt: now, UploadExpiresAt: exp}
		if err := tx.EvidenceFileInsert(ctx, f); err != nil {
			return 0, nil, err
		}
		// The answer names the file as file_id: the entry names it too.
		answer := &EvidenceUploadJSON{FileID: f.ID, UploadURL: s.uploadURL(f), UploadExpiresAt: exp}
		return OutcomeCreated, audited{answer: answer, objectID: f.ID, detail: "dispute " + d.ID}, nil
	})
}

// evidenceRoom refuses a new upload past the dispute's files or the shop's
// waiting bytes. A dispute holds at most MaxEvidenceFiles files, attached
// and waiting (reserved, uploading or uploaded, link not expired) counted
// together: a file that could never be attached is the contract's
// invalid_request (Disputes, rule 5), which no wait lifts for attached
// files. The shop's waiting bytes free up as files are attached or their
// links expire, so that bound answers 429 with Retry-After until the first
// waiting link expires. The caller holds the shop's and the dispute's
// locks, so both counts are exact whatever runs at once.
func evidenceRoom(ctx context.Context, tx Tx, d *Dispute, size int64, now time.Time) error {
	w, err := tx.EvidenceWaiting(ctx, &EvidenceWaitingParams{DisputeID: d.ID, Now: now})
	if err != nil {
		return err
	}
	if n := len(d.Evidence) + w.Files; n >= MaxEvidenceFiles {
		return Invalid("dispute_id", "dispute %s holds at most %d evidence files and has %d: %d attached, %d waiting to be attached "+
			"(a waiting file frees its place when its upload link expires, the first at %s)",
			d.ID, MaxEvidenceFiles, n, len(d.Evidence), w.Files, nextExpiry(w))
	}
	w, err = tx.EvidenceWaiting(ctx, &EvidenceWaitingParams{ShopID: d.ShopID, Test: d.Test, Now: now})
	if err != nil {
		return err
	}
	if w.Bytes+size > MaxEvidenceWaitingBytes {
		wait := max(w.NextExpiry.Sub(now), time.Second)
		return &Error{Code: CodeTooManyRequests, RetryAfter: wait, Message: fmt.Sprintf(
			"the shop has %d bytes of evidence waiting to be attached; %d more would pass its bound of %d", w.Bytes, size, MaxEvidenceWaitingBytes) +
			"; attach uploaded files (POST /v1/disputes/{dispute_id}/evidence) or wait until their upload links expire"}
	}
	return nil
}

// nextExpiry is when the first waiting file's link expires, or "-" when
// none waits.
func nextExpiry(w EvidenceWaitingSum) string {
	if w.Files == 0 {
		return "-"
	}
	return w.NextExpiry.UTC().Format(time.RFC3339)
}

func (s *Service) uploadURL(f *EvidenceFile) string {
	exp, sig := s.uploadLinks.SignExpiring(f.ID, f.UploadExpiresAt)
	return s.publicURL + s.paths.EvidenceUpload + f.ID + "?expires=" + exp + "&sig=" + sig
}

// EvidenceUpload is one PUT of an upload_url.
type EvidenceUpload struct {
	FileID, Expires, Sig string
	// ContentType is the request's Content-Type; empty or
	// application/octet-stream leave the declared type to the bytes.
	ContentType string
	// Length is the request's Content-Length, -1 when unknown (chunked).
	Length int64
	Body   io.Reader
}

var errUploadNotFound = NotFound("upload")

// UploadEvidence takes the bytes of a reserved file through its signed
// link. The link works once: an uploaded file refuses a second upload. A
// body whose length differs from size_bytes, or whose first bytes are not
// the declared type, is refused with nothing kept, and the link may be
// used again until it expires. The bytes stream to storage in chunks, each
// written in its own short transaction, so neither memory nor the
// database's writer is held by a slow upload.
func (s *Service) UploadEvidence(ctx context.Context, in EvidenceUpload) (*DisputeEvidence, error) {
	if !s.uploadLinks.VerifyExpiring(in.FileID, in.Expires, in.Sig, s.clock.Now()) {
		return nil, errUploadNotFound
	}
	f, err := s.claimUpload(ctx, in)
	if err != nil {
		return nil, err
	}
	ev, err := s.streamUpload(ctx, f, in.Body)
	if err != nil {
		// Whatever arrived goes, and the link may be used again.
		if rerr := s.releaseUpload(context.WithoutCancel(ctx), f); rerr != nil {
			s.log.Warn("release a failed evidence upload", "file", f.ID, "err", rerr.Error())
		}
		return nil, err
	}
	return ev, nil
}

// claimUpload checks the file and its dispute and marks the file as being
// uploaded, so that two uploads of one file never interleave.
func (s *Service) claimUpload(ctx context.Context, in EvidenceUpload) (f *EvidenceFile, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		if f, err = tx.EvidenceFileGetForUpdate(ctx, in.FileID); err != nil {
			return notFoundAs(err, "upload")
		}
		now := s.clock.Now()
		switch {
		case f.State == EvidenceUploaded:
			return Errorf(CodeInvalidState, "the file was uploaded already: an upload_url works once")
		case f.State == EvidenceUploading && f.LeaseUntil != nil && now.Before(*f.LeaseUntil):
			return Errorf(CodeIdempotencyInProgress, "an upload of this file is in progress")
		}
		d, err := tx.DisputeGet(ctx, f.DisputeID)
		if err != nil {
			return err
		}
		if err := s.evidenceOpen(d); err != nil {
			return err
		}
		if ct := mediaType(in.ContentType); ct != "" && ct != "application/octet-stream" && ct != f.ContentType {
			return Invalid("Content-Type", "the body is declared %s, but the upload was reserved for %s", ct, f.ContentType)
		}
		if in.Length >= 0 && (in.Length > f.SizeBytes || (in.Length != f.SizeBytes && !f.SizeUpTo)) {
			return Invalid("size_bytes", "the body has %d bytes, but the upload was reserved for size_bytes %d", in.Length, f.SizeBytes)
		}
		lease := now.Add(evidenceLease)
		f.State, f.LeaseUntil = EvidenceUploading, &lease
		if err := tx.EvidenceChunksDelete(ctx, f.ID); err != nil {
			return err
		}
		return tx.EvidenceFileUpdate(ctx, f)
	})
	return f, err
}

// mediaType is a Content-Type without its parameters.
func mediaType(ct string) string {
	if i := bytes.IndexByte([]byte(ct), ';'); i >= 0 {
		ct = ct[:i]
	}
	return string(bytes.ToLower(bytes.TrimSpace([]byte(ct))))
}

func (s *Service) streamUpload(ctx context.Context, f *EvidenceFile, body io.Reader) (*DisputeEvidence, error) {
	// One byte more than declared is enough to tell a longer body.
	r := io.LimitReader(body, f.SizeBytes+1)
	buf := make([]byte, min(evidenceChunkBytes, f.SizeBytes+1))
	sum := sha256.New()
	var total int64
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if seq == 0 {
				magic := evidenceMagic[f.ContentType]
				if !bytes.HasPrefix(buf[:n], magic) {
					return nil, Invalid("content_type", "the file does not begin as %s does", f.ContentType)
				}
			}
			total += int64(n)
			if total > f.SizeBytes && f.SizeUpTo {
				return nil, Invalid("size_bytes", "size_bytes must be 1..%d: the file is longer", f.SizeBytes)
			}
			if total > f.SizeBytes {
				return nil, Invalid("size_bytes", "the body is longer than size_bytes %d", f.SizeBytes)
			}
			sum.Write(buf[:n])
			if err := s.store.Tx(ctx, func(tx Tx) error { return tx.EvidenceChunkPut(ctx, f.ID, seq, buf[:n]) }); err != nil {
				return nil, err
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, Invalid("", "the upload broke off: %v", err)
		}
	}
	if total == 0 && f.SizeUpTo {
		return nil, Invalid("size_bytes", "the file is empty")
	}
	if total != f.SizeBytes && !f.SizeUpTo {
		return nil, Invalid("size_bytes", "the body has %d bytes, but the upload was reserved for size_bytes %d", total, f.SizeBytes)
	}
	var ev *DisputeEvidence
	err := s.store.Tx(ctx, func(tx Tx) error {
		cur, err := tx.EvidenceFileGetForUpdate(ctx, f.ID)
		if err != nil {
			return err
		}
		if cur.State != EvidenceUploading || cur.LeaseUntil == nil || !cur.LeaseUntil.Equal(*f.LeaseUntil) {
			return Errorf(CodeIdempotencyInProgress, "another upload of this file took over")
		}
		d, err := tx.DisputeGet(ctx, f.DisputeID)
		if err != nil {
			return err
		}
		if err := s.evidenceOpen(d); err != nil {
			return err
		}
		now := s.clock.Now()
		cur.State, cur.LeaseUntil, cur.UploadedAt, cur.SHA256 = EvidenceUploaded, nil, &now, hex.EncodeToString(sum.Sum(nil))
		// The room reserved for the most the file could be shrinks to
		// what it is.
		cur.SizeBytes, cur.SizeUpTo = total, false
		ev = cur.Evidence()
		return tx.EvidenceFileUpdate(ctx, cur)
	})
	return ev, err
}

// releaseUpload drops a failed upload's chunks and reserves the file
// again, unless another upload has taken the file over since. A
// reservation for the most a file may be (SizeUpTo) served that one
// upload and goes with it, so that a failed dashboard upload does not hold
// the dispute's place and the shop's bytes until its link expires.
func (s *Service) releaseUpload(ctx context.Context, claimed *EvidenceFile) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		f, err := tx.EvidenceFileGetForUpdate(ctx, claimed.ID)
		if err != nil {
			return err
		}
		if f.State != EvidenceUploading || f.LeaseUntil == nil || !f.LeaseUntil.Equal(*claimed.LeaseUntil) {
			return nil
		}
		if f.SizeUpTo {
			return tx.EvidenceFileDelete(ctx, f.ID)
		}
		if err := tx.EvidenceChunksDelete(ctx, f.ID); err != nil {
			return err
		}
		f.State, f.LeaseUntil = EvidenceReserved, nil
		return tx.EvidenceFileUpdate(ctx, f)
	})
}

// Evidence is the file as a dispute lists it.
func (f *EvidenceFile) Evidence() *DisputeEvidence {
	ev := &DisputeEvidence{FileID: f.ID, FileName: f.FileName, ContentType: f.ContentType, SizeBytes: f.SizeBytes}
	if f.UploadedAt != nil {
		ev.UploadedAt = *f.UploadedAt
	}
	return ev
}

// AttachEvidence is step 2: it attaches uploaded files of the dispute,
// keeping each file once and at most MaxEvidenceFiles in all, with an
// optional comment; the status never changes (Disputes, rules 3–5).
func (s *Service) AttachEvidence(ctx context.Context, p *Principal, idem Idempotency, disputeID string, fileIDs []string, comment string) (*Response, error) {
	if err := checkText("comment", comment, 0, 4096); err != nil {
		return nil, err
	}
	return s.idempotent(ctx, AuditAttachEvidence, p, idem, func(tx Tx) (Outcome, any, error) {
		d, err := scopedDispute(ctx, tx, p, disputeID, true)
		if err != nil {
			return 0, nil, err
		}
		if err := s.evidenceOpen(d); err != nil {
			return 0, nil, err
		}
		have := map[string]bool{}
		for _, ev := range d.Evidence {
			have[ev.FileID] = true
		}
		now := s.clock.Now()
		for i, id := range fileIDs {
			param := "file_ids." + strconv.Itoa(i)
			// Locked: the sweep of unattached files removes a file only
			// under this lock, so a file is either attached or gone.
			f, err := tx.EvidenceFileGetForUpdate(ctx, id)
			if errors.Is(err, ErrNoRows) || (err == nil && f.DisputeID != d.ID) {
				return 0, nil, Invalid(param, "unknown file_id %s", id)
			}
			if err != nil {
				return 0, nil, err
			}
			if f.State != EvidenceUploaded {
				return 0, nil, Invalid(param, "file %s has not been uploaded", id)
			}
			if have[id] {
				continue
			}
			if len(d.Evidence) == MaxEvidenceFiles {
				return 0, nil, Invalid("file_ids", "a dispute holds at most %d files", MaxEvidenceFiles)
			}
			have[id] = true
			d.Evidence = append(d.Evidence, *f.Evidence())
			f.AttachedAt = &now
			if err := tx.EvidenceFileUpdate(ctx, f); err != nil {
				return 0, nil, err
			}
		}
		if comment != "" {
			d.Comment = comment
		}
		if err := tx.DisputeUpdate(ctx, d); err != nil {
			return 0, nil, err
		}
		return OutcomeOK, d.View(), nil
	})
}

// EvidenceFileOf returns an uploaded evidence file of a dispute, for
// operators and for the dashboard's check that a form sent again carries
// the file it uploaded; it does not check the shop, which the caller has.
func (s *Service) EvidenceFileOf(ctx context.Context, disputeID, fileID string) (f *EvidenceFile, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		f, err = tx.EvidenceFileGet(ctx, fileID)
		return err
	})
	if err != nil || f.DisputeID != disputeID || f.State != EvidenceUploaded {
		return nil, NotFound("evidence file")
	}
	return f, nil
}

// CopyEvidence writes an uploaded file's bytes to w, one stored chunk at a
// time.
func (s *Service) CopyEvidence(ctx context.Context, f *EvidenceFile, w io.Writer) error {
	for seq := 0; ; seq++ {
		var data []byte
		err := s.store.View(ctx, func(tx Tx) (err error) {
			data, err = tx.EvidenceChunkGet(ctx, f.ID, seq)
			return err
		})
		if errors.Is(err, ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
}

// RemoveExpiredEvidence removes the evidence files never attached whose
// upload link has expired, with their bytes: what a merchant reserved or
// uploaded and let go must not stay in storage for good. A periodic job
// runs it. A file whose upload is still running (its lease not over) is
// left to the next sweep. A file from before attachments were marked is
// read against its dispute's evidence: if the dispute lists it, it is
// marked attached and kept.
func (s *Service) RemoveExpiredEvidence(ctx context.Context) (int, error) {
	params := &EvidenceListExpiredParams{Now: s.clock.Now(), Limit: expirySweepBatch}
	return sweepDue(ctx, s, "evidence files", expirySweepBatch,
		func(tx Tx, after *EvidenceDue) ([]EvidenceDue, error) {
			if after != nil {
				params.After = *after
			}
			return tx.EvidenceListExpired(ctx, params)
		},
		func(d EvidenceDue) (string, error) { return d.ID, s.removeUnattached(ctx, d.ID) })
}

// removeUnattached removes one expired file unless it is attached or its
// upload is still running.
func (s *Service) removeUnattached(ctx context.Context, id string) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		f, err := tx.EvidenceFileGetForUpdate(ctx, id)
		if errors.Is(err, ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if f.AttachedAt != nil || f.UploadExpiresAt.After(now) ||
			(f.State == EvidenceUploading && f.LeaseUntil != nil && now.Before(*f.LeaseUntil)) {
			return nil
		}
		d, err := tx.DisputeGet(ctx, f.DisputeID)
		if err != nil && !errors.Is(err, ErrNoRows) {
			return err
		}
		if d != nil && slices.ContainsFunc(d.Evidence, func(ev DisputeEvidence) bool { return ev.FileID == f.ID }) {
			at := f.CreatedAt
			if f.UploadedAt != nil {
				at = *f.UploadedAt
			}
			f.AttachedAt = &at
			return tx.EvidenceFileUpdate(ctx, f)
		}
		return tx.EvidenceFileDelete(ctx, f.ID)
	})
}
