package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/webhook"
)

// localServer is the developer's webhook handler on a fixed port, which
// the test stops and starts again.
type localServer struct {
	addr string
	mu   sync.Mutex
	got  []string // event ids in arrival order
	sigs []error
	srv  *http.Server
}

func (s *localServer) start(t *testing.T, secret func() string) {
	t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger a moment after close
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, r.Header.Get("X-Service-Event-Id"))
		s.sigs = append(s.sigs, webhook.Verify(r.Header.Get("X-Service-Signature"), body, []string{secret()}, time.Now()))
		s.mu.Unlock()
	})}
	go s.srv.Serve(ln)
}

func (s *localServer) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func TestListenForwardsAcrossRestart(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	local := &localServer{addr: "127.0.0.1:0"}
	out := &syncBuffer{}
	secretRE := regexp.MustCompile(`Signing secret: (\S+)`)
	secret := func() string {
		m := secretRE.FindStringSubmatch(out.String())
		if m == nil {
			return ""
		}
		return m[1]
	}
	local.start(t, secret)
	// listen reads the service through a proxy that counts its polls of
	// the feed.
	api, _ := url.Parse(env.API.URL)
	var polls atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(api)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/test/events" {
			polls.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(counting.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"listen", "--api-url", counting.URL + "/v1", "--shop-id", shop.ID, "--secret-key", shop.TestKey,
			"--data-dir", t.TempDir(), "--forward-to", "http://" + local.addr + "/hook", "--poll-interval", "200ms"}, func(string) string { return "" }, out, out)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		local.srv.Close()
	})
	paydtest.Eventually(t, "listen to start", func() bool { return secret() != "" })

	pay := func(n int) string {
		p := c.Post("/v1/payments", fmt.Sprintf("listen-pay-%04d", n), map[string]any{
			"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": fmt.Sprintf("listen-%d", n),
			"confirmation": map[string]any{"type": "qr"}}).Expect(t, 201).JSON(t)
		c.Post("/v1/test/payments/"+p["id"].(string)+"/simulate", fmt.Sprintf("listen-sim-%04d", n), map[string]any{"outcome": "succeed"}).Expect(t, 202)
		c.WaitStatus(p["id"].(string), "succeeded")
		return p["id"].(string)
	}
	eventOf := func(paymentID string) string {
		var list struct{ Items []struct{ ID string } }
		c.Get("/v1/events?object_id="+paymentID).Expect(t, 200).Decode(t, &list)
		return list.Items[0].ID
	}
	first := eventOf(pay(1))
	paydtest.Eventually(t, "the first event forwarded", func() bool { return len(local.ids()) == 1 })
	if local.ids()[0] != first {
		t.Fatalf("forwarded %v, want %s", local.ids(), first)
	}

	// The developer's server restarts; an event happens meanwhile, and
	// listen fails to forward it.
	local.srv.Close()
	second := eventOf(pay(2))
	failed := regexp.MustCompile(regexp.QuoteMeta(second) + `: .*; retrying in`)
	paydtest.Eventually(t, "listen to fail to forward the event from the downtime", func() bool { return failed.MatchString(out.String()) })
	local.start(t, secret)
	paydtest.Eventually(t, "the event from the downtime", func() bool { return len(local.ids()) == 2 })
	// The poll that forwarded it was counted by now; once two more have
	// begun, the first of them has ended: anything it forwarded again has
	// arrived.
	after := polls.Load() + 2
	paydtest.Eventually(t, "listen to poll twice more", func() bool { return polls.Load() >= after })
	ids := local.ids()
	if len(ids) != 2 || ids[1] != second {
		t.Fatalf("forwarded %v, want [%s %s]", ids, first, second)
	}
	for i, err := range local.sigs {
		if err != nil {
			t.Fatalf("forwarded event %d does not verify with the printed secret: %v", i, err)
		}
	}
}

func TestListenRefusesLiveKeys(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"listen", "--shop-id", "sh_x", "--secret-key", "live_ru_x", "--forward-to", "http://localhost:3000"},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("listen accepted a live key")
	}
}

// TestListenPollsAtDebug: the service logs the polls of `payd listen`
// (one a second by default) at debug, so that the request log at the
// default level keeps the developer's own calls; the same request from
// anyone else is an info line.
func TestListenPollsAtDebug(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	shop := env.NewShop(payd.RegionRU, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"listen", "--api-url", env.API.URL + "/v1", "--shop-id", shop.ID, "--secret-key", shop.TestKey,
			"--data-dir", t.TempDir(), "--forward-to", "http://127.0.0.1:1/hook", "--poll-interval", "100ms"}, func(string) string { return "" }, io.Discard, io.Discard)
	}()
	polls := func(level string) int {
		n := 0
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "level="+level+" ") && (strings.Contains(line, `route="GET /v1/events"`) || strings.Contains(line, `route="GET /v1/test/events"`)) {
				n++
			}
		}
		return n
	}
	paydtest.Eventually(t, "three polls of payd listen", func() bool { return polls("DEBUG")+polls("INFO") >= 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := polls("INFO"); n != 0 {
		t.Fatalf("%d polls of payd listen logged at info:\n%s", n, logs.String())
	}
	env.As(shop, false).Get("/v1/events").Expect(t, 200)
	if n := polls("INFO"); n != 1 {
		t.Fatalf("the shop's own GET /v1/events logged at info %d times, want 1:\n%s", n, logs.String())
	}
}
