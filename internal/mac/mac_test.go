package mac

import (
	"strings"
	"testing"
	"time"
)

var key = []byte("test key")

// TestSignVectors pins the bytes signed: each want was computed apart from
// this package, with `printf '<message>' | openssl dgst -sha256 -hmac 'test key'`.
// A signature that changes breaks every link, form and notification
// already handed out.
func TestSignVectors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, label string
		parts       []string
		want        string
	}{
		{"Labelled", "evidence-upload", []string{"evf_1", "1700000000"},
			"15b87b6c70418b5819c2ed78c3ca12f245e65a19557e47d56d3b76df23348a2e"}, // evidence-upload\x00evf_1\x001700000000
		{"Unlabelled", "", []string{"stl_1", "1700000000"},
			"92ebfd4eb112951c0d9ca9be1d6ec1ac85f9e0dbda5a4ccfc6f61779261cd3bd"}, // stl_1\x001700000000
		{"OnePart", "sandbank", []string{"att_1"},
			"bcece27341c30a187444e5dc9d7e86f1bfab5f2b17cf26f62ef2cbf22a42005b"}, // sandbank\x00att_1
		{"ThreeFields", "payment-link", []string{"pl_1", "tok"},
			"2beb86b7c90e44fe99c10f8bc67ddab299702210674f75050522b9815c5d156e"}, // payment-link\x00pl_1\x00tok
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := New(key, tc.label)
			if got := s.Sign(tc.parts...); got != tc.want {
				t.Fatalf("Sign = %s, want %s", got, tc.want)
			}
			if !s.Verify(tc.want, tc.parts...) {
				t.Fatalf("Verify(%s) = false, want true", tc.want)
			}
		})
	}
	exp, sig := New(key, "evidence-upload").SignExpiring("evf_1", time.Unix(1700000000, 999e6))
	if exp != "1700000000" || sig != cases[0].want {
		t.Fatalf("SignExpiring = %s, %s, want 1700000000, %s", exp, sig, cases[0].want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	upload := New(key, "evidence-upload")
	sig := upload.Sign("evf_1", "1700000000")
	cases := []struct {
		name   string
		signer Signer
		sig    string
		parts  []string
		want   bool
	}{
		{"Good", upload, sig, []string{"evf_1", "1700000000"}, true},
		{"UpperCaseHex", upload, strings.ToUpper(sig), []string{"evf_1", "1700000000"}, true},
		{"TamperedSig", upload, flip(sig), []string{"evf_1", "1700000000"}, false},
		{"ShortSig", upload, sig[:62], []string{"evf_1", "1700000000"}, false},
		{"LongSig", upload, sig + "00", []string{"evf_1", "1700000000"}, false},
		{"TamperedPart", upload, sig, []string{"evf_2", "1700000000"}, false},
		{"PartsMoved", upload, sig, []string{"evf_11700000000"}, false},
		{"ExtraPart", upload, sig, []string{"evf_1", "1700000000", ""}, false},
		{"FewerParts", upload, sig, []string{"evf_1"}, false},
		{"WrongLabel", New(key, "checkout"), sig, []string{"evf_1", "1700000000"}, false},
		{"NoLabel", New(key, ""), sig, []string{"evf_1", "1700000000"}, false},
		// Why an unlabelled Signer shares its key only with Signers of
		// another number of fields (the package comment): a label reads
		// as a first part.
		{"LabelAsPart", New(key, ""), sig, []string{"evidence-upload", "evf_1", "1700000000"}, true},
		{"WrongKey", New([]byte("other key"), "evidence-upload"), sig, []string{"evf_1", "1700000000"}, false},
		{"NonHexSig", upload, "zz" + sig[2:], []string{"evf_1", "1700000000"}, false},
		{"OddHexSig", upload, sig[1:], []string{"evf_1", "1700000000"}, false},
		{"EmptySig", upload, "", []string{"evf_1", "1700000000"}, false},
		{"EmptyParts", upload, sig, nil, false},
		{"EmptySigOfNothing", upload, "", nil, false},
		// With NUL allowed in parts, "evf_1\x001700000000" and
		// ("evf_1", "1700000000") would be one message.
		{"NULInPart", upload, sig, []string{"evf_1\x001700000000"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.signer.Verify(tc.sig, tc.parts...); got != tc.want {
				t.Fatalf("Verify = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSignNUL(t *testing.T) {
	t.Parallel()
	s := New(key, "checkout")
	if got := s.Sign("tok\x00en"); got != "" {
		t.Fatalf("Sign of a part with a NUL = %q, want empty", got)
	}
	if s.Verify("", "tok\x00en") {
		t.Fatal("Verify accepted the empty signature of a part with a NUL")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("New accepted a label with a NUL")
		}
	}()
	New(key, "check\x00out")
}

func TestVerifyExpiring(t *testing.T) {
	t.Parallel()
	report := New(key, "")
	exp := time.Unix(1700000000, 0)
	expires, sig := report.SignExpiring("stl_1", exp)
	cases := []struct {
		name             string
		signer           Signer
		id, expires, sig string
		now              time.Time
		want             bool
	}{
		{"Good", report, "stl_1", expires, sig, exp.Add(-time.Hour), true},
		{"AtExpiry", report, "stl_1", expires, sig, exp, true},
		{"LastInstantOfTheSecond", report, "stl_1", expires, sig, exp.Add(time.Second - 1), true},
		{"Expired", report, "stl_1", expires, sig, exp.Add(time.Second), false},
		{"TamperedSig", report, "stl_1", expires, flip(sig), exp.Add(-time.Hour), false},
		{"TamperedID", report, "stl_2", expires, sig, exp.Add(-time.Hour), false},
		{"ExpiryMovedLater", report, "stl_1", "1800000000", sig, exp.Add(-time.Hour), false},
		{"ExpiryNotANumber", report, "stl_1", "soon", report.Sign("stl_1", "soon"), exp.Add(-time.Hour), false},
		{"EmptyExpiry", report, "stl_1", "", report.Sign("stl_1", ""), exp.Add(-time.Hour), false},
		{"WrongLabel", New(key, "evidence-upload"), "stl_1", expires, sig, exp.Add(-time.Hour), false},
		{"NonHexSig", report, "stl_1", expires, "not hex", exp.Add(-time.Hour), false},
		{"EmptySig", report, "stl_1", expires, "", exp.Add(-time.Hour), false},
		{"Empty", report, "", "", "", time.Time{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.signer.VerifyExpiring(tc.id, tc.expires, tc.sig, tc.now); got != tc.want {
				t.Fatalf("VerifyExpiring = %v, want %v", got, tc.want)
			}
		})
	}
}

// flip changes the last hex digit of sig.
func flip(sig string) string {
	last := byte('0')
	if sig[len(sig)-1] == '0' {
		last = '1'
	}
	return sig[:len(sig)-1] + string(last)
}
