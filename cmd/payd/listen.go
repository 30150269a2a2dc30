package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/paydhq/payd/internal/api"
	"github.com/paydhq/payd/webhook"
)

const listenUsage = `payd listen — forward a shop's sandbox events to a local server

Usage:
  payd listen --forward-to http://localhost:3000/hook [flags]

Flags (each with an environment twin):
  --api-url URL        merchant API base (default http://127.0.0.1:8080/v1; $PAYD_API_URL)
  --shop-id ID         the shop ($PAYD_SHOP_ID)
  --secret-key KEY     a test key of the shop ($PAYD_SECRET_KEY)
  --forward-to URL     where to POST each event (required)
  --events LIST        comma-separated event types to forward (default all)
  --poll-interval D    how often to ask for new events (default 1s)

Each event is posted as the service would deliver it — the stored event bytes,
X-Service-Event-Id, and X-Service-Signature — signed with a secret printed at
start. Events are forwarded in order and one at a time; while the local
server is down or answers non-2xx, the same event is retried with back-off,
so nothing is lost across a restart of your server. Live keys are refused.
`

type listener struct {
	api, shopID, key, forward string
	types                     map[string]bool
	poll                      time.Duration
	secret                    string
	out                       io.Writer
	client                    *http.Client
	// after is the created_at from which events are asked for; seen holds
	// the ids already forwarded at that moment or later.
	after string
	seen  map[string]bool
}

func runListen(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	f := newFlags("listen", getenv, stdout)
	f.usage = func(w io.Writer) { fmt.Fprint(w, listenUsage) }
	api := f.String("api-url", "http://127.0.0.1:8080/v1", "merchant API base")
	shopID := f.String("shop-id", "", "shop id")
	key := f.String("secret-key", "", "test secret key")
	forward := f.String("forward-to", "", "local URL to POST events to")
	events := f.String("events", "", "event types to forward")
	poll := f.String("poll-interval", "1s", "poll interval")
	if err := f.Parse(args); err != nil {
		return err
	}
	if *forward == "" || *shopID == "" || *key == "" {
		fmt.Fprint(stderr, listenUsage)
		return errors.New("listen: --forward-to, --shop-id and --secret-key are required")
	}
	if !strings.HasPrefix(*key, "test_") {
		return errors.New("listen: only test keys: live events are delivered to registered endpoints only")
	}
	if u, err := url.Parse(*forward); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("listen: --forward-to %q is not an http(s) URL", *forward)
	}
	interval, err := time.ParseDuration(*poll)
	if err != nil || interval < 100*time.Millisecond {
		return errors.New("listen: --poll-interval must be a duration of at least 100ms")
	}
	raw := make([]byte, 24)
	rand.Read(raw)
	l := &listener{api: strings.TrimRight(*api, "/"), shopID: *shopID, key: *key, forward: *forward, poll: interval,
		secret: "whsec_listen_" + base64.RawURLEncoding.EncodeToString(raw), out: stdout,
		client: &http.Client{Timeout: 15 * time.Second}, seen: map[string]bool{}}
	if *events != "" {
		l.types = map[string]bool{}
		for _, t := range strings.Split(*events, ",") {
			l.types[strings.TrimSpace(t)] = true
		}
	}
	return l.run(ctx)
}

type listedEvent struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
}

func (l *listener) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.api+path, nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(l.shopID, l.key)
	// The service logs this command's polls at debug by this name.
	req.Header.Set("User-Agent", api.ListenUserAgent+"/"+version)
	resp, err := l.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, bytes.TrimSpace(body))
	}
	return body, nil
}

func (l *listener) run(ctx context.Context) error {
	// Start from the newest event: only what happens from now on is
	// forwarded.
	body, err := l.get(ctx, "/events?limit=1")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	var first struct{ Items []listedEvent }
	json.Unmarshal(body, &first)
	if len(first.Items) > 0 {
		l.after = first.Items[0].CreatedAt
		l.seen[first.Items[0].ID] = true
	}
	fmt.Fprintf(l.out, "Forwarding sandbox events of %s to %s\nSigning secret: %s\n(Ctrl-C to stop)\n", l.shopID, l.forward, l.secret)
	for {
		if err := l.pollOnce(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintf(l.out, "! %v\n", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(l.poll):
		}
	}
}

// pollOnce fetches the events from `after` on and forwards the new ones,
// oldest first.
func (l *listener) pollOnce(ctx context.Context) error {
	var fresh []listedEvent
	q := url.Values{"limit": {"100"}}
	if l.after != "" {
		q.Set("created_at_gte", l.after)
	}
	for page := 0; page < 50; page++ {
		body, err := l.get(ctx, "/events?"+q.Encode())
		if err != nil {
			return err
		}
		var list struct {
			Items      []listedEvent
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			return err
		}
		for _, e := range list.Items {
			if !l.seen[e.ID] {
				fresh = append(fresh, e)
			}
		}
		if list.NextCursor == nil {
			break
		}
		q.Set("cursor", *list.NextCursor)
	}
	sort.Slice(fresh, func(i, j int) bool {
		if fresh[i].CreatedAt != fresh[j].CreatedAt {
			return timeOf(fresh[i].CreatedAt).Before(timeOf(fresh[j].CreatedAt))
		}
		return fresh[i].ID < fresh[j].ID
	})
	for _, e := range fresh {
		if l.types == nil || l.types[e.Type] {
			if err := l.deliver(ctx, e); err != nil {
				return err
			}
		}
		l.markSeen(e)
	}
	return nil
}

func timeOf(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

func (l *listener) markSeen(e listedEvent) {
	if l.after == "" || timeOf(e.CreatedAt).After(timeOf(l.after)) {
		l.after = e.CreatedAt
		// Ids older than the new start can no longer come back.
		l.seen = map[string]bool{}
	}
	l.seen[e.ID] = true
}

// deliver posts one event until the local server takes it (2xx) or ctx
// ends, waiting longer after each failure.
func (l *listener) deliver(ctx context.Context, e listedEvent) error {
	body, err := l.get(ctx, "/events/"+e.ID)
	if err != nil {
		return err
	}
	wait := 500 * time.Millisecond
	for {
		now := time.Now()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.forward, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", webhook.UserAgent)
		req.Header.Set(webhook.EventIDHeader, e.ID)
		req.Header.Set(webhook.SignatureHeader, webhook.Header(now, body, l.secret))
		resp, err := l.client.Do(req)
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if resp.StatusCode >= 200 && resp.StatusCode < 300 {
				fmt.Fprintf(l.out, "→ %s %s [%d]\n", e.Type, e.ID, resp.StatusCode)
				return nil
			}
			fmt.Fprintf(l.out, "  %s %s answered %d; retrying in %v\n", e.Type, e.ID, resp.StatusCode, wait)
		} else {
			fmt.Fprintf(l.out, "  %s %s: %v; retrying in %v\n", e.Type, e.ID, err, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}
