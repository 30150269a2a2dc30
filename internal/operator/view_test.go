package operator

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/ledger"
)

var update = flag.Bool("update", false, "rewrite the golden answers in testdata/")

// TestViewsGolden pins the operator API's objects: each is encoded as the
// handlers encode it, once from a fixture with every field set (every
// member shows) and once from the zero value (only the members without
// omitempty show), and compared with testdata/<object>.json and
// testdata/<object>.zero.json. The goldens are indented for reading;
// indenting adds only whitespace between tokens, so equal indented forms
// are equal answers. A diff here is a change of the operator API: review
// it before refreshing the goldens with -update.
func TestViewsGolden(t *testing.T) {
	for _, tc := range []struct {
		name       string
		full, zero any
	}{
		{"merchant", merchantView(fullMerchant()), merchantView(&payd.Merchant{})},
		{"shop", shopView(fullShop()), shopView(&payd.Shop{})},
		{"key", keyView(fullKey()), keyView(&payd.APIKey{})},
		{"key_issued", keyIssued{keyJSON: keyView(fullKey()), Secret: "live_kz_0123456789abcdefghijABCDEFGHIJ"},
			keyIssued{keyJSON: keyView(&payd.APIKey{})}},
		{"payment", paymentView(fullPayment()), paymentView(&payd.Payment{})},
		{"provider", providerView(fullProviderInfo()), providerView(payd.ProviderInfo{})},
		{"provider_route", routeView(fullProviderRoute()), routeView(&payd.ProviderRoute{})},
		{"discrepancy", discrepancyView(fullDiscrepancy()), discrepancyView(&payd.Discrepancy{})},
		{"delivery_attempt", deliveryAttemptView(fullDeliveryAttempt()), deliveryAttemptView(&payd.DeliveryAttempt{})},
		{"settlement", settlementView(fullSettlement(), "https://payd.example/reports/settlements/stl_01J0000000000000000000000A.csv?expires=1767225600&sig=c2lnbmF0dXJl"), settlementView(&payd.Settlement{}, "")},
		// A freeze answers with the contract's SettlementStatus, as GET
		// /v1/shop shows it to the merchant.
		{"settlement_status", fullSettlementStatus(), &payd.SettlementStatus{}},
		{"dispute", disputeView(fullDispute()), disputeView(&payd.Dispute{})},
		{"user", userView(fullUser()), userView(&payd.User{})},
		{"user_with_link", userWithLink{userJSON: userView(fullUser()), SetupURL: "https://payd.example/dashboard/setup/tok"},
			userWithLink{userJSON: userView(&payd.User{})}},
		{"audit_entry", auditView(fullAuditEntry()), auditView(&payd.AuditEntry{})},
		{"ledger_entry", entryView(fullLedgerEntry()), entryView(&ledger.Entry{})},
	} {
		goldenJSON(t, filepath.Join("testdata", tc.name+".json"), tc.full)
		goldenJSON(t, filepath.Join("testdata", tc.name+".zero.json"), tc.zero)
	}
}

// goldenJSON encodes v as httpapi.WriteJSON does and compares it with the
// golden file at path.
func goldenJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, b, "", "  "); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got.WriteByte('\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// TestSettingsRead reads the settings of testdata/shop.json as a PATCH or
// a new shop carries them: operators write settings with the names they
// read, whatever the domain stores them as.
func TestSettingsRead(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "shop.json"))
	if err != nil {
		t.Fatal(err)
	}
	var shop struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := json.Unmarshal(b, &shop); err != nil {
		t.Fatal(err)
	}
	var in settingsJSON
	if err := httpapi.DecodeJSON(shop.Settings, &in, httpapi.DecodeOptions{RejectUnknown: true}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fullSettings(), in.settings()); diff != "" {
		t.Errorf("settings read mismatch (-want +got):\n%s", diff)
	}
	next, err := mergeSettings(fullSettings(), json.RawMessage(`{"display_name": null, "payments_per_minute": 7}`))
	if err != nil {
		t.Fatal(err)
	}
	want := fullSettings()
	want.DisplayName, want.PaymentsPerMinute = "", 7
	if diff := cmp.Diff(want, next); diff != "" {
		t.Errorf("merged settings mismatch (-want +got):\n%s", diff)
	}
}
