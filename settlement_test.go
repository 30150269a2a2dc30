package payd

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"
	"time"
)

// errLinkChecked is what linkStore answers: a signed link that reaches
// the store passed its check.
var errLinkChecked = errors.New("the link passed its check")

// linkStore stands for the store behind a signed link. It answers every
// read and write with errLinkChecked, so a test tells a link refused
// (not_found) from one let through without a database.
type linkStore struct{ Store }

func (linkStore) View(context.Context, func(Tx) error) error { return errLinkChecked }
func (linkStore) Tx(context.Context, func(Tx) error) error   { return errLinkChecked }

// linkClock is a clock stopped at one instant.
type linkClock struct{ now time.Time }

func (c linkClock) Now() time.Time { return c.now }

const linkTestKey = "report key"

// linkTestService is a Service whose report key is linkTestKey and whose
// clock stands at now.
func linkTestService(now time.Time) *Service {
	return NewService(Config{Store: linkStore{}, Clock: linkClock{now}, ReportKey: []byte(linkTestKey), PublicURL: "https://payd.test",
		Paths: Paths{EvidenceUpload: "/uploads/evidence/", SettlementReport: "/reports/settlements/"}})
}

// oldReportSig is a report link's signature as payd computed it before its
// links were signed by internal/mac: HMAC-SHA256 under the report key of
// id NUL expires, in lowercase hex.
func oldReportSig(id, exp string) string {
	m := hmac.New(sha256.New, []byte(linkTestKey))
	m.Write([]byte(id + "\x00" + exp))
	return hex.EncodeToString(m.Sum(nil))
}

// A report link keeps its bytes across an upgrade: links issued before it
// still open, and links issued after it are the ones an older payd issued.
func TestSettlementReportLinkSignature(t *testing.T) {
	t.Parallel()
	const id = PrefixSettlement + "01M8AV34KEEJQJH3JGNQXS5SYY"
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	exp := strconv.FormatInt(now.Add(ReportTTL).Unix(), 10)
	sig := oldReportSig(id, exp)

	want := "https://payd.test/reports/settlements/" + id + ".csv?expires=" + exp + "&sig=" + sig
	if got := linkTestService(now).ReportURL(&Settlement{ID: id}); got != want {
		t.Fatalf("ReportURL = %s\nwant %s", got, want)
	}

	cases := []struct {
		name         string
		now          time.Time
		id, exp, sig string
		ok           bool
	}{
		{"SignedBeforeTheUpgrade", now, id, exp, sig, true},
		{"LastSecond", now.Add(ReportTTL), id, exp, sig, true},
		{"Expired", now.Add(ReportTTL + time.Second), id, exp, sig, false},
		{"AnotherSettlement", now, PrefixSettlement + "01M8AV34KEEJQJH3JGNQXS5SYZ", exp, sig, false},
		{"LaterExpiry", now, id, strconv.FormatInt(now.Add(2*ReportTTL).Unix(), 10), sig, false},
		{"TamperedSig", now, id, exp, oldReportSig(id, exp+"0"), false},
		{"UploadLinkSig", now, id, exp, oldUploadSig(id, exp), false},
		// An id that holds a NUL would make an upload link's message a
		// report link's; the path decodes %00, so it is refused.
		{"UploadLinkSigWithNULInID", now, "evidence-upload\x00" + id, exp, oldUploadSig(id, exp), false},
		{"NotHex", now, id, exp, "zz" + sig[2:], false},
		{"NoSig", now, id, exp, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := linkTestService(tc.now).ReportEntries(t.Context(), tc.id, tc.exp, tc.sig)
			switch {
			case tc.ok && !errors.Is(err, errLinkChecked):
				t.Fatalf("ReportEntries: %v, want the link let through", err)
			case !tc.ok && ErrorCodeOf(err) != CodeNotFound:
				t.Fatalf("ReportEntries: %v, want not_found", err)
			}
		})
	}
}
