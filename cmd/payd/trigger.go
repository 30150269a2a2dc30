package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

const triggerUsage = `payd trigger — cause one sandbox event of a type, as a merchant's code would

Usage:
  payd trigger EVENT_TYPE [flags]
  payd trigger --list

It makes the real chain of objects through the merchant API with the
shop's test key (then the sandbox's simulate), and through the operator
API where only an operator, a bank or time can cause the event. It prints
each request and the ids of the objects and of the event, and fails when
the event did not appear within --timeout.

Flags (each with an environment twin):
  --list               list the event types and how each is caused
  --override REQ:PATH=VALUE
                       set a member of a request's body, e.g.
                       payment:amount.value=123.00 (repeatable); a request
                       or path the recipe does not send is refused
  --timeout D          how long to wait for the event (default 30s)
  --data-dir DIR       data directory of a payd serve --dev (default
                       ./payd-data): its dev.json gives every flag below
  --api-url URL        merchant API base ($PAYD_API_URL)
  --shop-id ID         the shop ($PAYD_SHOP_ID)
  --secret-key KEY     a test key of the shop ($PAYD_SECRET_KEY)
  --admin-url URL      operator API base ($PAYD_ADMIN_URL)
  --admin-token TOKEN  operator API token ($PAYD_ADMIN_TOKEN)
`

// trigger is one run of a recipe.
type trigger struct {
	c        *merchantClient
	event    string
	currency string
	// region is the shop's: its calendar of business days (payout).
	region  string
	timeout time.Duration
	out     io.Writer
	run     string // a random tag of this run, in keys and order ids
	n       int
	// overrides by request name; used records which were applied.
	overrides map[string][]override
	used      map[string]bool
	// from is the feed's last sequence before the first request; found
	// is set once the event appeared.
	from  int64
	found bool
}

type override struct {
	path  []string
	value string
	raw   string
}

func runTrigger(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	f := newFlags("trigger", getenv, stdout)
	f.usage = func(w io.Writer) { fmt.Fprint(w, triggerUsage) }
	mf := addMerchantFlags(f, true)
	list := f.Bool("list", false, "list what can be triggered")
	overrides := f.List("override", "REQ:PATH=VALUE")
	timeout := f.Duration("timeout", 30*time.Second, "how long to wait for the event")
	// The event type may come before the flags: payd trigger TYPE --flag.
	var event string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		event, args = args[0], args[1:]
	}
	if err := f.Parse(args); err != nil {
		return err
	}
	if *list {
		for _, r := range recipes {
			note := ""
			if r.operator {
				note += " [operator]"
			}
			if r.stage != "" {
				note += " [stage " + r.stage + "]"
			}
			fmt.Fprintf(stdout, "%-28s %s%s\n", r.event, r.about, note)
		}
		return nil
	}
	if event == "" && f.NArg() > 0 {
		event = f.Arg(0)
	}
	r, ok := recipeFor(event)
	if !ok {
		fmt.Fprint(stderr, triggerUsage)
		if event == "" {
			return errors.New("trigger: an event type is required (payd trigger --list)")
		}
		return fmt.Errorf("trigger: unknown event type %q (payd trigger --list)", event)
	}
	c, err := mf.resolve("trigger")
	if err != nil {
		return err
	}
	if r.operator && (c.admin == "" || c.token == "") {
		return fmt.Errorf("trigger: %s is caused by an operator (%s), and the operator API is out of reach: %w", event, r.about, errNoOperator)
	}
	tag := make([]byte, 4)
	rand.Read(tag)
	tr := &trigger{c: c, event: event, timeout: *timeout, out: stdout, run: hex.EncodeToString(tag),
		overrides: map[string][]override{}, used: map[string]bool{}}
	for _, o := range *overrides {
		req, rest, ok1 := strings.Cut(o, ":")
		path, value, ok2 := strings.Cut(rest, "=")
		if !ok1 || !ok2 || req == "" || path == "" {
			return fmt.Errorf("trigger: --override %q: want REQUEST:PATH=VALUE, such as payment:amount.value=123.00", o)
		}
		tr.overrides[req] = append(tr.overrides[req], override{path: strings.Split(path, "."), value: value, raw: o})
	}
	c.trace = stdout
	ctx, cancel := context.WithTimeout(ctx, *timeout+time.Minute)
	defer cancel()
	return tr.start(ctx, r)
}

func (tr *trigger) start(ctx context.Context, r *recipe) error {
	var shop struct {
		DefaultCurrency string `json:"default_currency"`
		Region          string `json:"region"`
	}
	if err := tr.c.do(ctx, false, http.MethodGet, "/shop", "", nil, &shop); err != nil {
		return fmt.Errorf("trigger: %w", err)
	}
	tr.currency, tr.region = shop.DefaultCurrency, shop.Region
	if tr.currency == "" {
		tr.currency = "RUB"
	}
	var page feedPage
	if err := tr.c.do(ctx, false, http.MethodGet, "/test/events?limit=1", "", nil, &page); err != nil {
		return fmt.Errorf("trigger: %w", err)
	}
	tr.from = page.LastSequence
	fmt.Fprintf(tr.out, "Triggering %s in shop %s: %s\n", tr.event, tr.c.shopID, r.about)
	if err := r.run(tr, ctx); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusNotImplemented && r.stage != "" {
			return fmt.Errorf("trigger: %s needs the service at stage %s (payd serve --stage %s): %w", tr.event, r.stage, r.stage, err)
		}
		return fmt.Errorf("trigger %s: %w", tr.event, err)
	}
	var unused []string
	for req, list := range tr.overrides {
		if !tr.used[req] {
			for _, o := range list {
				unused = append(unused, o.raw)
			}
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return fmt.Errorf("trigger: --override %s: the recipe of %s sends no such request", strings.Join(unused, ", "), tr.event)
	}
	return tr.waitEvent(ctx)
}

// name is a fresh name for an idempotency key or an order id.
func (tr *trigger) name(what string) string {
	tr.n++
	return fmt.Sprintf("trigger-%s-%s-%d", tr.run, what, tr.n)
}

func (tr *trigger) object(kind, id string) {
	fmt.Fprintf(tr.out, "  → %s %s\n", kind, id)
}

// post sends a request of the recipe, named req for --override, with a
// fresh idempotency key.
func (tr *trigger) post(ctx context.Context, req, path string, body map[string]any, out any) error {
	for _, o := range tr.overrides[req] {
		if err := setMember(body, o.path, o.value); err != nil {
			return fmt.Errorf("--override %s: %w", o.raw, err)
		}
		tr.used[req] = true
	}
	return tr.c.do(ctx, false, http.MethodPost, path, tr.name(req), body, out)
}

// setMember sets the member at path of body to value, in the type the
// member has; a path the body does not have is an error, never ignored.
func setMember(body map[string]any, path []string, value string) error {
	cur := body
	for i, p := range path {
		v, ok := cur[p]
		if !ok {
			return fmt.Errorf("the request has no member %s", strings.Join(path[:i+1], "."))
		}
		if i < len(path)-1 {
			next, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
			}
			cur = next
			continue
		}
		switch v.(type) {
		case string:
			cur[p] = value
		case bool:
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("%s is true or false", strings.Join(path, "."))
			}
			cur[p] = b
		default:
			var j any
			if err := json.Unmarshal([]byte(value), &j); err != nil {
				return fmt.Errorf("%s takes JSON: %v", strings.Join(path, "."), err)
			}
			cur[p] = j
		}
	}
	return nil
}

// waitFor reads an object until its status is want.
func (tr *trigger) waitFor(ctx context.Context, path, want string) error {
	deadline := time.Now().Add(tr.timeout)
	for {
		var obj struct{ Status string }
		if err := tr.c.do(ctx, false, http.MethodGet, path, "", nil, &obj); err != nil {
			return err
		}
		if obj.Status == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is %s, not %s, after %v", path, obj.Status, want, tr.timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// waitEvent reads the sandbox feed from where it was before the first
// request until an event of the type appears.
func (tr *trigger) waitEvent(ctx context.Context) error {
	if tr.found {
		return nil
	}
	deadline := time.Now().Add(tr.timeout)
	tracing := tr.c.trace
	tr.c.trace = nil // the polls would drown the requests that matter
	defer func() { tr.c.trace = tracing }()
	for {
		var page feedPage
		if err := tr.c.do(ctx, false, http.MethodGet, "/test/events?limit=100&after_sequence="+strconv.FormatInt(tr.from, 10), "", nil, &page); err != nil {
			return err
		}
		for _, e := range page.Items {
			if e.Type == tr.event {
				fmt.Fprintf(tr.out, "Event %s %s\n", e.Type, e.ID)
				tr.found = true
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("trigger: no %s event within %v", tr.event, tr.timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
