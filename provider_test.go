package payd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDiscrepancyStatusName: the status of whatever a discrepancy's report
// was about keeps its first JSON name, payment_status, which stored
// documents and the operator API's list carry.
func TestDiscrepancyStatusName(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Discrepancy{ObjectStatus: "succeeded"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"payment_status":"succeeded"`) {
		t.Fatalf("Discrepancy as JSON = %s, want payment_status", b)
	}
	var d Discrepancy
	if err := json.Unmarshal([]byte(`{"payment_status":"canceled"}`), &d); err != nil || d.ObjectStatus != "canceled" {
		t.Fatalf("a stored document's payment_status read as %q, %v", d.ObjectStatus, err)
	}
}
