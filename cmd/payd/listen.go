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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd/internal/api"
	"github.com/paydhq/payd/webhook"
)

const listenUsage = `payd listen — forward a shop's sandbox events to a local server

Usage:
  payd listen --forward-to http://localhost:3000/hook [flags]

Flags (each with an environment twin):
  --forward-to URL     where to POST each event (required)
  --events LIST        comma-separated event types to forward (default all)
  --state FILE         where the position in the feed is kept (default
                       <data-dir>/listen-<shop id>.json)
  --data-dir DIR       data directory of a payd serve --dev (default
                       ./payd-data): its dev.json gives the flags below
  --api-url URL        merchant API base ($PAYD_API_URL)
  --shop-id ID         the shop ($PAYD_SHOP_ID)
  --secret-key KEY     a test key of the shop ($PAYD_SECRET_KEY)
  --poll-interval D    how often to ask for new events (default 1s)
  --grace D            how long after reading an event the saved position
                       passes it (default 10s; see below)

Events are read from the shop's sandbox feed (GET /v1/test/events), where a
resent event appears again, and each is posted as the service delivers it:
the stored event bytes, X-Service-Event-Id, and X-Service-Signature signed
with a secret printed at start (webhook.Verify checks it). Events are
forwarded one at a time; while the local server is down or answers non-2xx
the same event is retried with back-off. The position in the feed is saved
in --state, so a listener stopped and started again forwards what happened
meanwhile; the first start begins with what happens from then on. The
position passes an event --grace after it was read, since on PostgreSQL an
event numbered lower may still commit meanwhile: a listener restarted
sooner may forward an event again (receivers deduplicate on the event id).
Live keys are refused.
`

// feedGrace is how long after an event was read the saved position moves
// past it. On PostgreSQL an event's number is drawn before its transaction
// commits, so an event numbered below one already read may still appear
// (a transaction takes milliseconds; ten seconds is far beyond). A
// listener restarted within feedGrace of an event may forward it again;
// receivers deduplicate on the event id (Events: Delivery).
const feedGrace = 10 * time.Second

type listener struct {
	c       *merchantClient
	forward string
	grace   time.Duration
	types   map[string]bool
	poll    time.Duration
	secret  string
	out     io.Writer
	state   string
	// cursor is the saved position: every event numbered up to it was
	// forwarded (or left out by --events). done holds the numbers above
	// it already forwarded, with when each was first read.
	cursor int64
	done   map[int64]time.Time
}

// listenState is the --state file.
type listenState struct {
	ShopID        string `json:"shop_id"`
	AfterSequence int64  `json:"after_sequence"`
}

func runListen(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	f := newFlags("listen", getenv, stdout)
	f.usage = func(w io.Writer) { fmt.Fprint(w, listenUsage) }
	mf := addMerchantFlags(f, false)
	forward := f.String("forward-to", "", "local URL to POST events to")
	events := f.String("events", "", "event types to forward")
	poll := f.String("poll-interval", "1s", "poll interval")
	state := f.String("state", "", "file keeping the position in the feed")
	grace := f.Duration("grace", feedGrace, "how long after reading an event the saved position passes it")
	if err := f.Parse(args); err != nil {
		return err
	}
	if *forward == "" {
		fmt.Fprint(stderr, listenUsage)
		return errors.New("listen: --forward-to is required")
	}
	c, err := mf.resolve("listen")
	if err != nil {
		return err
	}
	// The service logs this command's polls at debug by this name.
	c.userAgent = api.ListenUserAgent + "/" + version
	if u, err := url.Parse(*forward); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("listen: --forward-to %q is not an http(s) URL", *forward)
	}
	interval, err := time.ParseDuration(*poll)
	if err != nil || interval < 100*time.Millisecond {
		return errors.New("listen: --poll-interval must be a duration of at least 100ms")
	}
	raw := make([]byte, 24)
	rand.Read(raw)
	if *grace < 0 {
		return errors.New("listen: --grace must not be negative")
	}
	l := &listener{c: c, forward: *forward, grace: *grace, poll: interval, state: *state, out: stdout, done: map[int64]time.Time{},
		secret: "whsec_listen_" + base64.RawURLEncoding.EncodeToString(raw)}
	if l.state == "" {
		l.state = filepath.Join(*mf.dataDir, "listen-"+c.shopID+".json")
	}
	if *events != "" {
		l.types = map[string]bool{}
		for _, t := range strings.Split(*events, ",") {
			l.types[strings.TrimSpace(t)] = true
		}
	}
	return l.run(ctx)
}

type feedPage struct {
	Items []struct {
		Sequence int64  `json:"sequence"`
		ID       string `json:"id"`
		Type     string `json:"type"`
	} `json:"items"`
	LastSequence int64 `json:"last_sequence"`
}

func (l *listener) feed(ctx context.Context, after int64, limit int) (*feedPage, error) {
	var page feedPage
	err := l.c.do(ctx, false, http.MethodGet, "/test/events?after_sequence="+strconv.FormatInt(after, 10)+"&limit="+strconv.Itoa(limit), "", nil, &page)
	return &page, err
}

func (l *listener) run(ctx context.Context) error {
	from := "where it left off"
	saved, err := l.load()
	switch {
	case err == nil:
		l.cursor = saved
	case errors.Is(err, os.ErrNotExist):
		// A first start forwards what happens from now on.
		page, err := l.feed(ctx, 0, 1)
		if err != nil {
			return fmt.Errorf("listen: %w", err)
		}
		l.cursor, from = page.LastSequence, "now"
		if err := l.save(); err != nil {
			return err
		}
	default:
		return err
	}
	fmt.Fprintf(l.out, "Forwarding sandbox events of %s to %s, from %s (position %d in %s)\nSigning secret: %s\n(Ctrl-C to stop)\n",
		l.c.shopID, l.forward, from, l.cursor, l.state, l.secret)
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

// pollOnce forwards the feed's events after the saved position that were
// not forwarded yet, lowest number first, then moves the position up.
func (l *listener) pollOnce(ctx context.Context) error {
	after := l.cursor
	for page := 0; page < 50; page++ {
		p, err := l.feed(ctx, after, 100)
		if err != nil {
			return err
		}
		for _, e := range p.Items {
			after = max(after, e.Sequence)
			if _, ok := l.done[e.Sequence]; ok {
				continue
			}
			if l.types == nil || l.types[e.Type] {
				if err := l.deliver(ctx, e.ID, e.Type); err != nil {
					return err
				}
			}
			l.done[e.Sequence] = time.Now()
		}
		if len(p.Items) < 100 {
			break
		}
	}
	return l.advance()
}

// advance moves the saved position up to the highest forwarded number
// first seen feedGrace ago or earlier: by then every event with a lower
// number has committed and was read, whatever order numbers committed in.
// Numbers above the position stay in done, so they are not forwarded
// twice while the position waits.
func (l *listener) advance() error {
	to := l.cursor
	for seq, seen := range l.done {
		if seq > to && time.Since(seen) >= l.grace {
			to = seq
		}
	}
	if to == l.cursor {
		return nil
	}
	for seq := range l.done {
		if seq <= to {
			delete(l.done, seq)
		}
	}
	l.cursor = to
	return l.save()
}

func (l *listener) load() (int64, error) {
	b, err := os.ReadFile(l.state)
	if err != nil {
		return 0, err
	}
	var st listenState
	if err := json.Unmarshal(b, &st); err != nil {
		return 0, fmt.Errorf("listen: %s is not a listen state file: %w", l.state, err)
	}
	if st.ShopID != l.c.shopID {
		return 0, fmt.Errorf("listen: %s is the position of shop %s, not %s; give another --state", l.state, st.ShopID, l.c.shopID)
	}
	return st.AfterSequence, nil
}

// save writes the position to a new file and renames it over the old one,
// so a crash leaves the old position or the new, never half a file.
func (l *listener) save() error {
	b, _ := json.Marshal(listenState{ShopID: l.c.shopID, AfterSequence: l.cursor})
	if err := os.MkdirAll(filepath.Dir(l.state), 0o700); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	tmp := l.state + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return os.Rename(tmp, l.state)
}

// deliver posts one event until the local server takes it (2xx) or ctx
// ends, waiting longer after each failure.
func (l *listener) deliver(ctx context.Context, id, typ string) error {
	var body []byte
	if err := l.c.do(ctx, false, http.MethodGet, "/events/"+id, "", nil, &body); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			// Deleted meanwhile (a sandbox reset): nothing to forward.
			return nil
		}
		return err
	}
	wait := 500 * time.Millisecond
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.forward, bytes.NewReader(body))
		if err != nil {
			return err
		}
		// The headers of a real delivery (delivery_attempt.go), signed
		// at the moment of sending, as each attempt of a delivery is.
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", webhook.UserAgent)
		req.Header.Set(webhook.EventIDHeader, id)
		req.Header.Set(webhook.SignatureHeader, webhook.Header(time.Now(), body, l.secret))
		resp, err := l.c.http.Do(req)
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if resp.StatusCode >= 200 && resp.StatusCode < 300 {
				fmt.Fprintf(l.out, "→ %s %s [%d]\n", typ, id, resp.StatusCode)
				return nil
			}
			fmt.Fprintf(l.out, "  %s %s answered %d; retrying in %v\n", typ, id, resp.StatusCode, wait)
		} else {
			fmt.Fprintf(l.out, "  %s %s: %v; retrying in %v\n", typ, id, err, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}
