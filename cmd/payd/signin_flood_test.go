package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/serve"
)

// floodServer is payd serve --dev as a process of its own, so that its
// memory can be read from /proc.
type floodServer struct {
	cmd *exec.Cmd
	dev serve.DevInfo
	dir string
}

func startFloodServer(t *testing.T, extra ...string) *floodServer {
	t.Helper()
	s := &floodServer{dir: filepath.Join(t.TempDir(), "data")}
	addr, admin := freeAddr(t), freeAddr(t)
	args := append([]string{"serve", "--dev", "--data-dir", s.dir, "--addr", addr, "--admin-addr", admin,
		"--trusted-proxy", "127.0.0.1"}, extra...)
	s.cmd = exec.Command(buildPayd(t), args...)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		s.cmd.Wait()
	})
	waitReady(t, addr)
	raw, err := os.ReadFile(filepath.Join(s.dir, "dev.json"))
	if err != nil || json.Unmarshal(raw, &s.dev) != nil || s.dev.Dashboard == nil {
		t.Fatalf("dev.json: %s %v", raw, err)
	}
	return s
}

// memKiB reads a field (VmRSS, VmHWM) of the process's status in KiB.
func (s *floodServer) memKiB(t *testing.T, field string) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(raw)
	if m == nil {
		t.Fatalf("no %s in /proc status", field)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signInForm is one browser's signed-out form: its cookie and token, which
// every sign-in of the flood reuses.
func signInForm(t *testing.T, dashboard string) (*http.Client, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(dashboard + "signin")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	m := csrfInput.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf token on the sign-in page")
	}
	return c, string(m[1])
}

// flood posts n sign-ins at once, the i-th from addr(i) with email(i), and
// counts the answers by status.
func flood(t *testing.T, c *http.Client, dashboard, csrf string, n int, addr, email func(i int) string) map[int]int {
	t.Helper()
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			form := url.Values{"csrf": {csrf}, "email": {email(i)}, "password": {"a wrong password " + strconv.Itoa(i)}}
			req, _ := http.NewRequest("POST", dashboard+"signin", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-For", addr(i))
			<-start
			resp, err := c.Do(req)
			status := 0
			if err == nil {
				status = resp.StatusCode
				resp.Body.Close()
			}
			mu.Lock()
			got[status]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return got
}

// apiLatency is the median time of a few GET /v1/shop.
func apiLatency(t *testing.T, s *floodServer, n int) time.Duration {
	t.Helper()
	shop := s.dev.Shops[0]
	var times []time.Duration
	for range n {
		req, _ := http.NewRequest("GET", s.dev.APIURL+"/v1/shop", nil)
		req.SetBasicAuth(shop.ShopID, shop.SecretKey)
		began := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		times = append(times, time.Since(began))
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// TestSignInFlood is an attacker's flood of the dashboard's sign-in on a
// real process. From one address, 300 sign-ins at once (unknown emails
// and the owner's) check no more passwords than the address's budget of
// 60; from 300 addresses at once, the process-wide bound on password
// checks refuses what is past it at once (503), so the process grows by
// at most the bound's memory — not 19 MiB a request. PAYD_FLOOD_SIZE
// makes the second flood larger.
func TestSignInFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a payd process")
	}
	t.Parallel()
	s := startFloodServer(t)
	dashboard := strings.TrimSuffix(s.dev.Dashboard.URL, "/") + "/"
	c, csrf := signInForm(t, dashboard)
	owner := s.dev.Dashboard.Email
	idle := apiLatency(t, s, 21)

	got := flood(t, c, dashboard, csrf, 300, func(int) string { return "198.51.100.1" }, func(i int) string {
		if i%2 == 0 {
			return owner
		}
		return fmt.Sprintf("stranger%d@example.test", i)
	})
	if got[http.StatusUnauthorized] > 60 || got[http.StatusUnauthorized] == 0 ||
		got[http.StatusUnauthorized]+got[http.StatusTooManyRequests]+got[http.StatusServiceUnavailable] != 300 {
		t.Fatalf("300 at once from one address: %v; want at most the budget of 60 checked (401), the rest 429 or 503", got)
	}
	t.Logf("one address, 300 at once: %v", got)

	size := 300
	if v, err := strconv.Atoi(os.Getenv("PAYD_FLOOD_SIZE")); err == nil && v > 0 {
		size = v
	}
	rss := s.memKiB(t, "VmRSS")
	// The API is timed while floods of size sign-ins follow each other,
	// three at least.
	var during time.Duration
	timed := make(chan struct{})
	go func() {
		defer close(timed)
		during = apiLatency(t, s, 21)
	}()
	answers, rounds := map[int]int{}, 0
	for flooding := true; flooding; rounds++ {
		got := flood(t, c, dashboard, csrf, size, func(i int) string {
			i += rounds * size
			return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		}, func(i int) string { return fmt.Sprintf("flood%d-%d@example.test", rounds, i) })
		for status, n := range got {
			answers[status] += n
		}
		select {
		case <-timed:
			flooding = rounds < 2 // three floods at least
		default:
		}
	}
	growth := s.memKiB(t, "VmHWM") - rss
	if answers[http.StatusUnauthorized]+answers[http.StatusServiceUnavailable] != rounds*size {
		t.Fatalf("%d rounds of %d addresses at once: %v; want every answer 401 or 503", rounds, size, answers)
	}
	// The default bound on a machine of this size, each check holding
	// argon2id's 19 MiB, and room for the connections and pages.
	bound := account.DefaultPasswordChecks(account.DefaultArgon2())*19*1024 + 96*1024
	if growth > bound {
		t.Fatalf("%d sign-ins at once grew the process by %d MiB; the bound is %d MiB", size, growth>>10, bound>>10)
	}
	t.Logf("%d rounds of %d addresses at once: %v; peak RSS growth %d MiB (bound %d MiB); GET /v1/shop median %v idle, %v during",
		rounds, size, answers, growth>>10, bound>>10, idle, during)
}
