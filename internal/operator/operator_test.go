package operator_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestOperatorToken(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	for _, h := range []string{"", "Bearer wrong", "Basic " + env.Token, "Bearer " + env.Token + "x"} {
		hdr := map[string][]string{}
		if h != "" {
			hdr["Authorization"] = []string{h}
		}
		r := env.Do("GET", env.Admin.URL, "/admin/v1/merchants", nil, hdr)
		r.ExpectError(t, 401, payd.CodeInvalidCredentials, "")
	}
	env.AdminDo("GET", "/admin/v1/merchants", nil).Expect(t, 200)
	env.Do("GET", env.Admin.URL, "/admin/v1/nothing", nil, nil).ExpectError(t, 401, payd.CodeInvalidCredentials, "")
	env.AdminDo("GET", "/admin/v1/nothing", nil).ExpectError(t, 404, payd.CodeNotFound, "")
	// Metrics are served on the operator listener.
	m := env.Do("GET", env.Admin.URL, "/metrics", nil, nil).Expect(t, 200)
	for _, want := range []string{"payd_http_requests_total", "payd_http_request_duration_seconds", "payd_jobs"} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestOperatorMerchantsShopsKeys(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		env.AdminDo("POST", "/admin/v1/merchants", map[string]any{}).ExpectError(t, 400, payd.CodeInvalidRequest, "name")
		m := env.AdminDo("POST", "/admin/v1/merchants", map[string]any{"name": "Acme", "legal_name": "Acme LLC", "tax_id": "7700000000"}).Expect(t, 201).JSON(t)
		id := m["id"].(string)
		if got := env.AdminDo("GET", "/admin/v1/merchants/"+id, nil).Expect(t, 200).JSON(t); got["legal_name"] != "Acme LLC" {
			t.Fatalf("merchant = %v", got)
		}
		env.AdminDo("GET", "/admin/v1/merchants/mer_00000000000000000000000000", nil).ExpectError(t, 404, payd.CodeNotFound, "")

		bad := []struct {
			body  map[string]any
			param string
		}{
			{map[string]any{"merchant_id": id, "region": "us", "name": "S"}, "region"},
			{map[string]any{"merchant_id": id, "region": "ru", "name": ""}, "name"},
			{map[string]any{"merchant_id": id, "region": "ru", "name": "S", "default_currency": "GBP"}, "default_currency"},
			{map[string]any{"merchant_id": "mer_x", "region": "ru", "name": "S"}, "merchant_id"},
		}
		for _, tt := range bad {
			env.AdminDo("POST", "/admin/v1/shops", tt.body).ExpectError(t, 400, payd.CodeInvalidRequest, tt.param)
		}
		shop := env.AdminDo("POST", "/admin/v1/shops", map[string]any{"merchant_id": id, "region": "kz", "name": "Almaty"}).Expect(t, 201).JSON(t)
		shopID := shop["id"].(string)
		if shop["default_currency"] != "KZT" || shop["activated_at"] != nil {
			t.Fatalf("shop = %v", shop)
		}
		// Settings: merge, validation, unknown fields refused.
		up := env.AdminDo("PATCH", "/admin/v1/shops/"+shopID, map[string]any{"display_name": "Almaty Books", "payments_per_minute": 10}).Expect(t, 200).JSON(t)
		st := up["settings"].(map[string]any)
		if st["display_name"] != "Almaty Books" || st["payments_per_minute"] != float64(10) {
			t.Fatalf("settings = %v", st)
		}
		up = env.AdminDo("PATCH", "/admin/v1/shops/"+shopID, map[string]any{"statement_name": "ALMATY BOOKS"}).Expect(t, 200).JSON(t)
		if up["settings"].(map[string]any)["display_name"] != "Almaty Books" {
			t.Fatal("a PATCH forgot an earlier setting")
		}
		env.AdminDo("PATCH", "/admin/v1/shops/"+shopID, map[string]any{"statment_name": "typo"}).ExpectError(t, 400, payd.CodeInvalidRequest, "statment_name")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shopID, map[string]any{"statement_name": strings.Repeat("S", 33)}).ExpectError(t, 400, payd.CodeInvalidRequest, "statement_name")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shopID, map[string]any{"payment_lifetime_seconds": 60}).ExpectError(t, 400, payd.CodeInvalidRequest, "payment_lifetime_seconds")
		// The zone of the shop's times: an IANA name; a bad one is refused
		// and the setting stays as it was.
		for _, zone := range []string{"Moscow", "Local", "Europe/Nowhere", "+05:00"} {
			env.AdminDo("PATCH", "/admin/v1/shops/"+shopID, map[string]any{"time_zone": zone}).ExpectError(t, 400, payd.CodeInvalidRequest, "time_zone")
		}
		if st := env.AdminDo("GET", "/admin/v1/shops/"+shopID, nil).Expect(t, 200).JSON(t)["settings"].(map[string]any); st["time_zone"] != nil {
			t.Fatalf("a refused time_zone was kept: %v", st)
		}
		up = env.AdminDo("PATCH", "/admin/v1/shops/"+shopID, map[string]any{"time_zone": "Asia/Aqtobe"}).Expect(t, 200).JSON(t)
		if up["settings"].(map[string]any)["time_zone"] != "Asia/Aqtobe" {
			t.Fatalf("time_zone not kept: %v", up["settings"])
		}
		// State actions.
		for _, a := range []string{"activate", "block", "unblock", "suspend", "resume"} {
			env.AdminDo("POST", "/admin/v1/shops/"+shopID+"/"+a, nil).Expect(t, 200)
		}
		got := env.AdminDo("GET", "/admin/v1/shops/"+shopID, nil).Expect(t, 200).JSON(t)
		if got["activated_at"] == nil || got["blocked"] != false || got["payments_suspended"] != false {
			t.Fatalf("shop after actions = %v", got)
		}
		env.AdminDo("POST", "/admin/v1/shops/"+shopID+"/explode", nil).ExpectError(t, 400, payd.CodeInvalidRequest, "action")
		env.AdminDo("POST", "/admin/v1/shops/sh_00000000000000000000000000/block", nil).ExpectError(t, 404, payd.CodeNotFound, "")
		// Keys: the secret once, mode validated.
		env.AdminDo("POST", "/admin/v1/shops/"+shopID+"/keys", map[string]any{"mode": "prod"}).ExpectError(t, 400, payd.CodeInvalidRequest, "mode")
		k := env.AdminDo("POST", "/admin/v1/shops/"+shopID+"/keys", map[string]any{"mode": "live"}).Expect(t, 201).JSON(t)
		if !strings.HasPrefix(k["secret"].(string), "live_kz_") {
			t.Fatalf("key = %v", k)
		}
		keys := env.AdminDo("GET", "/admin/v1/shops/"+shopID+"/keys", nil).Expect(t, 200)
		if strings.Contains(string(keys.Body), k["secret"].(string)) || strings.Contains(string(keys.Body), "hash") {
			t.Fatal("key list leaks the secret or its hash")
		}
		// Lists page like the merchant API.
		for i := 0; i < 3; i++ {
			env.AdminDo("POST", "/admin/v1/shops", map[string]any{"merchant_id": id, "region": "ru", "name": "S"}).Expect(t, 201)
		}
		var page struct {
			Items      []map[string]any
			NextCursor *string `json:"next_cursor"`
		}
		env.AdminDo("GET", "/admin/v1/shops?merchant_id="+id+"&limit=3", nil).Expect(t, 200).Decode(t, &page)
		if len(page.Items) != 3 || page.NextCursor == nil {
			t.Fatalf("first page = %+v", page)
		}
		env.AdminDo("GET", "/admin/v1/shops?merchant_id="+id+"&limit=3&cursor="+*page.NextCursor, nil).Expect(t, 200).Decode(t, &page)
		if len(page.Items) != 1 || page.NextCursor != nil || page.Items[0]["id"] != shopID {
			t.Fatalf("second page = %+v", page)
		}
	})
}

// The operator moves the test clock however many merchants run on it
// (their dashboards may not: internal/dashboard TestSandboxClockShared),
// and each move is in the service's log with the amount, the new time and
// the address it came from.
func TestOperatorClock(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	env.NewShop(payd.RegionRU, "")
	env.NewShop(payd.RegionRU, "")
	before := env.Clock.Now()
	var got struct{ Now time.Time }
	env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": 86400}).Expect(t, 200).Decode(t, &got)
	if d := got.Now.Sub(before); d < 24*time.Hour || d > 24*time.Hour+time.Minute {
		t.Fatalf("clock moved %v, want 24h", d)
	}
	var moved []map[string]any
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "test clock advanced by the operator" {
			moved = append(moved, rec)
		}
	}
	if len(moved) != 1 || moved[0]["seconds"] != float64(86400) || moved[0]["now"] != got.Now.Format(time.RFC3339) || moved[0]["addr"] != "127.0.0.1" {
		t.Errorf("log of the move = %v, want one line with seconds 86400, now %s, addr 127.0.0.1", moved, got.Now.Format(time.RFC3339))
	}
	env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": -5}).ExpectError(t, 400, payd.CodeInvalidRequest, "seconds")
	env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{}).ExpectError(t, 400, payd.CodeInvalidRequest, "seconds")
}

// syncBuffer is a log destination the service's goroutines write to at
// once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
