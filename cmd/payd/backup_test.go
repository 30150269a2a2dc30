package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/paydtest"
)

// devService is a running `payd serve --dev` and what its dev.json holds.
type devService struct {
	t                 *testing.T
	srv               *running
	api, admin, token string
	shopID, secretKey string
}

func startDev(t *testing.T, dir string) *devService {
	t.Helper()
	addr, admin := freeAddr(t), freeAddr(t)
	srv := startServe(t, "--dev", "--data-dir", dir, "--addr", addr, "--admin-addr", admin)
	waitHealthy(t, http.DefaultClient, "http://"+addr, srv)
	raw, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		AdminToken string `json:"admin_token"`
		Shops      []struct {
			ShopID    string `json:"shop_id"`
			SecretKey string `json:"secret_key"`
		} `json:"shops"`
	}
	if err := json.Unmarshal(raw, &info); err != nil || len(info.Shops) == 0 {
		t.Fatalf("dev.json = %s (%v)", raw, err)
	}
	return &devService{t: t, srv: srv, api: "http://" + addr + "/v1", admin: "http://" + admin, token: info.AdminToken,
		shopID: info.Shops[0].ShopID, secretKey: info.Shops[0].SecretKey}
}

// call sends a merchant request and decodes the answer.
func (d *devService) call(method, path, idemKey string, body any) (int, map[string]any) {
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, d.api+path, rd)
	req.SetBasicAuth(d.shopID, d.secretKey)
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Errorf("%s %s: %v", method, path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (d *devService) ledgerOK() bool {
	req, _ := http.NewRequest("GET", d.admin+"/admin/v1/ledger/check", nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		OK       bool     `json:"ok"`
		Problems []string `json:"problems"`
	}
	json.NewDecoder(resp.Body).Decode(&res)
	if !res.OK {
		d.t.Logf("ledger check: %d %v", resp.StatusCode, res.Problems)
	}
	return res.OK
}

// TestSQLiteBackupWhileServing: the backup docs/operations.md gives for
// SQLite ("Backing up SQLite") is taken from a second connection while
// payd serves and payments are being made; the copy, with the data
// directory's secrets key, is served by another payd: every payment
// acknowledged before the copy began is there as it was, and the ledger
// check holds.
func TestSQLiteBackupWhileServing(t *testing.T) {
	t.Parallel()
	live := filepath.Join(t.TempDir(), "payd-data")
	d := startDev(t, live)
	newPayment := func(i int) string {
		status, p := d.call("POST", "/payments", fmt.Sprintf("backup-%d", i), map[string]any{
			"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": fmt.Sprintf("backup-%d", i),
			"confirmation": map[string]any{"type": "qr"}})
		if status != 201 {
			t.Errorf("payment %d: %d %v", i, status, p)
			return ""
		}
		return p["id"].(string)
	}
	paid := newPayment(0)
	if status, _ := d.call("POST", "/test/payments/"+paid+"/simulate", "backup-pay", map[string]any{"outcome": "succeed"}); status != 202 {
		t.Fatalf("simulate: %d", status)
	}
	paydtest.EventuallyWithin(t, 20*time.Second, "the payment to be paid", func() bool {
		_, p := d.call("GET", "/payments/"+paid, "", nil)
		return p["status"] == "succeeded"
	})
	var before []string
	for i := 1; i <= 20; i++ {
		before = append(before, newPayment(i))
	}

	// Payments go on being made while the copy is taken.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 100; ; i++ {
			select {
			case <-stop:
				return
			default:
				newPayment(i)
			}
		}
	}()
	backup := filepath.Join(t.TempDir(), "copy.db")
	db, err := sql.Open("sqlite", "file:"+filepath.Join(live, "payd.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`VACUUM INTO ?`, backup); err != nil {
		t.Fatalf("VACUUM INTO while payd serves: %v", err)
	}
	db.Close()
	close(stop)
	wg.Wait()

	restored := filepath.Join(t.TempDir(), "payd-data")
	if err := os.MkdirAll(restored, 0o700); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{backup: "payd.db", filepath.Join(live, "secrets.key"): "secrets.key",
		filepath.Join(live, "dev.json"): "dev.json"} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(restored, to), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, want := d.call("GET", "/payments/"+paid, "", nil)
	r := startDev(t, restored)
	if r.shopID != d.shopID {
		t.Fatalf("the restored service made a demo shop of its own (%s, was %s)", r.shopID, d.shopID)
	}
	status, got := r.call("GET", "/payments/"+paid, "", nil)
	for _, f := range []string{"status", "amount", "fee_amount", "captured_amount", "captured_at", "authorization_details"} {
		if status != 200 || fmt.Sprint(got[f]) != fmt.Sprint(want[f]) {
			t.Fatalf("the paid payment from the copy: %d, %s %v, was %v", status, f, got[f], want[f])
		}
	}
	for _, id := range before {
		if status, _ := r.call("GET", "/payments/"+id, "", nil); status != 200 {
			t.Errorf("payment %s, acknowledged before the copy: %d from the copy", id, status)
		}
	}
	if !r.ledgerOK() {
		t.Error("the ledger check fails on the copy")
	}
}
