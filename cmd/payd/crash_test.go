package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/paydtest"
)

// crashServer is payd as a separate process, so that it can be killed.
type crashServer struct {
	bin, dir, addr, admin string
	cmd                   *exec.Cmd
}

func (s *crashServer) start(t *testing.T) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "serve", "--dev", "--test-clock", "--data-dir", s.dir, "--addr", s.addr, "--admin-addr", s.admin)
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitReady(t, s.addr)
}

// waitReady waits, a minute at most, until payd on addr answers /readyz.
func waitReady(t *testing.T, addr string) {
	t.Helper()
	paydtest.EventuallyWithin(t, time.Minute, "payd on "+addr+" to become ready", func() bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

func (s *crashServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGKILL)
		s.cmd.Wait()
	}
}

// TestCrashRecovery kills payd with SIGKILL at random moments under
// concurrent payment and refund load, restarts it, and checks that every
// acknowledged operation survived, that retries with the same
// Idempotency-Key never made a second refund, and that the money
// invariants hold. PAYD_CRASH_ROUNDS makes it longer.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts payd processes")
	}
	t.Parallel()
	rounds := 3
	if n, err := fmt.Sscan(os.Getenv("PAYD_CRASH_ROUNDS"), &rounds); n != 1 || err != nil {
		rounds = 3
	}
	dir := t.TempDir()
	bin := buildPayd(t)
	s := &crashServer{bin: bin, dir: filepath.Join(dir, "data"), addr: freeAddr(t), admin: freeAddr(t)}
	s.start(t)
	defer s.kill()
	var info struct {
		AdminToken string `json:"admin_token"`
		Shops      []struct {
			ShopID    string `json:"shop_id"`
			SecretKey string `json:"secret_key"`
		} `json:"shops"`
	}
	// A ready answer on the address may come from another test's server
	// that took the port first; this one's dev.json says it is ours.
	raw, err := os.ReadFile(filepath.Join(s.dir, "dev.json"))
	if err != nil || json.Unmarshal(raw, &info) != nil || len(info.Shops) == 0 {
		t.Fatalf("payd answered ready but its dev.json has no shop (%v); was %s taken by another process?", err, s.addr)
	}
	shop := info.Shops[0]
	api := "http://" + s.addr + "/v1"
	client := &http.Client{Timeout: 5 * time.Second}
	// post retries through crashes with the same key until it gets an
	// answer; it returns the final status and body.
	post := func(path, key string, body any) (int, map[string]any) {
		b, _ := json.Marshal(body)
		for i := 0; i < 400; i++ {
			req, _ := http.NewRequest("POST", api+path, bytes.NewReader(b))
			req.SetBasicAuth(shop.ShopID, shop.SecretKey)
			req.Header.Set("Idempotency-Key", key)
			resp, err := client.Do(req)
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			var out map[string]any
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if resp.StatusCode == 409 && out["code"] == "idempotency_in_progress" || resp.StatusCode >= 500 {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			return resp.StatusCode, out
		}
		return 0, nil
	}
	get := func(path string) (int, map[string]any) {
		for i := 0; i < 400; i++ {
			req, _ := http.NewRequest("GET", api+path, nil)
			req.SetBasicAuth(shop.ShopID, shop.SecretKey)
			resp, err := client.Do(req)
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			var out map[string]any
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			return resp.StatusCode, out
		}
		return 0, nil
	}

	var mu sync.Mutex
	acked := map[string]string{} // payment id → order id
	refundKeys := map[string]string{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				order := fmt.Sprintf("crash-%d-%d", w, i)
				st, p := post("/payments", "pay-"+order, map[string]any{"amount": map[string]any{"value": "100.00", "currency": "RUB"},
					"order_id": order, "confirmation": map[string]any{"type": "qr"}})
				if st != 201 && st != 200 {
					continue
				}
				id := p["id"].(string)
				mu.Lock()
				acked[id] = order
				mu.Unlock()
				post("/test/payments/"+id+"/simulate", "sim-"+order, map[string]any{"outcome": "succeed"})
				for j := 0; j < 40; j++ {
					if _, got := get("/payments/" + id); got != nil && got["status"] == "succeeded" {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				key := "refund-" + order
				if st, r := post("/refunds", key, map[string]any{"payment_id": id, "amount": map[string]any{"value": "10.00", "currency": "RUB"}}); st == 201 || st == 200 {
					mu.Lock()
					refundKeys[key] = r["id"].(string)
					mu.Unlock()
				}
			}
		}()
	}
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for r := 0; r < rounds; r++ {
		time.Sleep(time.Duration(300+rnd.IntN(900)) * time.Millisecond)
		s.kill()
		s.start(t)
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(acked) == 0 {
		t.Fatal("no payment was acknowledged")
	}
	// Every acknowledged payment and refund is there, and each payment has
	// at most the one refund its one key asked for.
	for id := range acked {
		if st, _ := get("/payments/" + id); st != 200 {
			t.Fatalf("acknowledged payment %s lost: %d", id, st)
		}
		_, list := get("/refunds?payment_id=" + id)
		if n := len(list["items"].([]any)); n > 1 {
			t.Fatalf("payment %s has %d refunds; retries made a second one", id, n)
		}
	}
	for key, rid := range refundKeys {
		if st, _ := get("/refunds/" + rid); st != 200 {
			t.Fatalf("acknowledged refund %s (%s) lost: %d", rid, key, st)
		}
	}
	req, _ := http.NewRequest("GET", "http://"+s.admin+"/admin/v1/ledger/check", nil)
	req.Header.Set("Authorization", "Bearer "+info.AdminToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var check struct {
		OK       bool
		Problems []string
	}
	json.NewDecoder(resp.Body).Decode(&check)
	resp.Body.Close()
	if !check.OK {
		t.Fatalf("invariants after %d crashes: %v", rounds, check.Problems)
	}
	t.Logf("%d crashes: %d payments and %d refunds acknowledged, all present; invariants hold", rounds, len(acked), len(refundKeys))
}
