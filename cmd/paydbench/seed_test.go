package main

import (
	"encoding/json"
	"testing"

	"github.com/paydhq/payd"
)

// The seeded rows are the service's own: each payment's rendering is the
// one the service would store for its document, ids and times grow with
// the row, every payment has its event, and every tenth succeeded one a
// refund counted in its document.
func TestSeederRowsAreTheServices(t *testing.T) {
	s := newSeeder("sh_01M8ACYKNMCMKZH0XPCPFY27QC", "mer_01M8ACYKNMCMKZH0XPCPFY27QD", 1000)
	rows, err := s.batch(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.payments) != 1000 || len(rows.events) != 1000 {
		t.Fatalf("%d payments, %d events, want 1000 of each", len(rows.payments), len(rows.events))
	}
	refunded := 0
	var lastID string
	var lastAt int64
	for i, r := range rows.payments {
		var p payd.Payment
		if err := json.Unmarshal([]byte(r[10].(string)), &p); err != nil {
			t.Fatal(err)
		}
		view, _ := json.Marshal(p.View(""))
		if string(view) != r[12].(string) || p.ID != r[0].(string) || string(p.Status) != r[3].(string) {
			t.Fatalf("row %d is not its document's: %v", i, r)
		}
		if id, at := r[0].(string), r[7].(int64); id <= lastID || at <= lastAt {
			t.Fatalf("row %d: id %s at %d after %s at %d", i, id, at, lastID, lastAt)
		} else {
			lastID, lastAt = id, at
		}
		if rows.events[i][5] != p.ID {
			t.Fatalf("event %d is about %v, want %s", i, rows.events[i][5], p.ID)
		}
		if p.RefundedAmount > 0 {
			refunded++
		}
	}
	if refunded != len(rows.refunds) || refunded < 80 || refunded > 100 {
		t.Fatalf("%d payments refunded, %d refund rows; want the same, about 90", refunded, len(rows.refunds))
	}
}
