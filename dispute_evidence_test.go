package payd

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"
	"time"
)

// oldUploadSig is an evidence upload link's signature as payd computed it
// before its links were signed by internal/mac: HMAC-SHA256 under the
// report key of "evidence-upload" NUL id NUL expires, in lowercase hex.
func oldUploadSig(id, exp string) string {
	m := hmac.New(sha256.New, []byte(linkTestKey))
	m.Write([]byte("evidence-upload\x00" + id + "\x00" + exp))
	return hex.EncodeToString(m.Sum(nil))
}

// An upload link keeps its bytes across an upgrade: one handed out before
// it still takes its file, and one handed out after it is the one an
// older payd handed out.
func TestEvidenceUploadLinkSignature(t *testing.T) {
	t.Parallel()
	const id = PrefixEvidence + "01M8AV34KEEJQJH3JGNQXS5SYY"
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	expAt := now.Add(time.Hour)
	exp := strconv.FormatInt(expAt.Unix(), 10)
	sig := oldUploadSig(id, exp)

	want := "https://payd.test/uploads/evidence/" + id + "?expires=" + exp + "&sig=" + sig
	if got := linkTestService(now).uploadURL(&EvidenceFile{ID: id, UploadExpiresAt: expAt}); got != want {
		t.Fatalf("uploadURL = %s\nwant %s", got, want)
	}

	cases := []struct {
		name         string
		now          time.Time
		id, exp, sig string
		ok           bool
	}{
		{"SignedBeforeTheUpgrade", now, id, exp, sig, true},
		{"LastSecond", expAt, id, exp, sig, true},
		{"Expired", expAt.Add(time.Second), id, exp, sig, false},
		{"AnotherFile", now, PrefixEvidence + "01M8AV34KEEJQJH3JGNQXS5SYZ", exp, sig, false},
		{"LaterExpiry", now, id, strconv.FormatInt(expAt.Add(time.Hour).Unix(), 10), sig, false},
		{"TamperedSig", now, id, exp, oldUploadSig(id, exp+"0"), false},
		{"ReportLinkSig", now, id, exp, oldReportSig(id, exp), false},
		{"NotHex", now, id, exp, "zz" + sig[2:], false},
		{"NoSig", now, id, exp, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := linkTestService(tc.now).UploadEvidence(t.Context(), EvidenceUpload{FileID: tc.id, Expires: tc.exp, Sig: tc.sig})
			switch {
			case tc.ok && !errors.Is(err, errLinkChecked):
				t.Fatalf("UploadEvidence: %v, want the link let through", err)
			case !tc.ok && ErrorCodeOf(err) != CodeNotFound:
				t.Fatalf("UploadEvidence: %v, want not_found", err)
			}
		})
	}
}
