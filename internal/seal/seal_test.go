package seal

import (
	"errors"
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string) *Keyring {
	t.Helper()
	k, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func gen(t *testing.T, id string) string {
	t.Helper()
	s, err := Generate(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSealOpen(t *testing.T) {
	t.Parallel()
	k := mustParse(t, gen(t, "k1"))
	v := k.Seal([]byte("whsec_abc"), "webhook_endpoints.secret\x00whe_1")
	if !strings.HasPrefix(v, "sealed:k1:") || strings.Contains(v, "whsec_abc") {
		t.Fatalf("sealed value %q", v)
	}
	if v2 := k.Seal([]byte("whsec_abc"), "webhook_endpoints.secret\x00whe_1"); v2 == v {
		t.Fatal("two seals of one value are equal: the nonce is not fresh")
	}
	got, err := k.Open(v, "webhook_endpoints.secret\x00whe_1")
	if err != nil || string(got) != "whsec_abc" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	// Moved to another row or column, it does not open.
	for _, ctx := range []string{"webhook_endpoints.secret\x00whe_2", "webhook_endpoints.prev_secret\x00whe_1", ""} {
		if _, err := k.Open(v, ctx); !errors.Is(err, ErrOpen) {
			t.Errorf("Open in context %q: %v, want ErrOpen", ctx, err)
		}
	}
	// Changed bytes, a value in clear, or a truncated one do not open.
	raw := []byte(v)
	raw[len(raw)-3] ^= 1
	for _, bad := range []string{string(raw), "whsec_abc", "sealed:k1:", "sealed:k1:AAAA", "sealed:"} {
		if _, err := k.Open(bad, "webhook_endpoints.secret\x00whe_1"); !errors.Is(err, ErrOpen) {
			t.Errorf("Open(%q): %v, want ErrOpen", bad, err)
		}
	}
	// Empty plaintext seals and opens too.
	e := k.Seal(nil, "c")
	if got, err := k.Open(e, "c"); err != nil || len(got) != 0 {
		t.Fatalf("Open of an empty seal = %q, %v", got, err)
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	old, fresh := gen(t, "2025-01"), gen(t, "2026-11")
	before := mustParse(t, old)
	v := before.Seal([]byte("JBSWY3DPEHPK3PXP"), "dashboard_users.totp_secret\x00usr_1")

	// The new key seals, the old still opens.
	during := mustParse(t, fresh+"\n"+old)
	if during.Primary() != "2026-11" {
		t.Fatalf("Primary = %q", during.Primary())
	}
	if got, err := during.Open(v, "dashboard_users.totp_secret\x00usr_1"); err != nil || string(got) != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("old value under the new keyring: %q, %v", got, err)
	}
	r, changed, err := during.Reseal(v, "dashboard_users.totp_secret\x00usr_1")
	if err != nil || !changed || !strings.HasPrefix(r, "sealed:2026-11:") {
		t.Fatalf("Reseal = %q, %v, %v", r, changed, err)
	}
	if again, changed, err := during.Reseal(r, "dashboard_users.totp_secret\x00usr_1"); err != nil || changed || again != r {
		t.Fatalf("Reseal of a value under the first key = %q, %v, %v", again, changed, err)
	}

	// Once the old key is gone, only resealed values open.
	after := mustParse(t, fresh)
	if _, err := after.Open(v, "dashboard_users.totp_secret\x00usr_1"); !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), `"2025-01"`) {
		t.Fatalf("old value without its key: %v", err)
	}
	if got, err := after.Open(r, "dashboard_users.totp_secret\x00usr_1"); err != nil || string(got) != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("resealed value: %q, %v", got, err)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	a, b := gen(t, "a"), gen(t, "b")
	for _, text := range []string{a + "\n" + b + "\n", "# kek\n" + a + "\r\n" + b, a + "," + b, " " + a + "  " + b + " "} {
		k, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		if ids := k.IDs(); len(ids) != 2 || ids[0] != "a" || ids[1] != "b" {
			t.Fatalf("Parse(%q) ids %v", text, ids)
		}
	}
	for _, bad := range []string{"", "# only a comment", "nocolon", "a:AAAA", "a:!!!", a + "\n" + a, "bad id:" + strings.TrimPrefix(a, "a:"),
		strings.Repeat("x", 33) + ":" + strings.TrimPrefix(a, "a:")} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// BenchmarkSealAnswer seals and opens an answer of the size of a
// payment's (about 1.5 KB): what every idempotent request and its replay
// add.
func BenchmarkSealAnswer(b *testing.B) {
	line, err := Generate("k1")
	if err != nil {
		b.Fatal(err)
	}
	k, err := Parse(line)
	if err != nil {
		b.Fatal(err)
	}
	answer := []byte(strings.Repeat(`{"id":"pay_01JD3","status":"pending"},`, 40))
	ctx := "idempotency_keys.body\x00sh_1\x00test\x00key-1"
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		if _, err := k.Open(k.Seal(answer, ctx), ctx); err != nil {
			b.Fatal(err)
		}
	}
}
