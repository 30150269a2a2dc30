package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestTriggerCataloguesEveryEventType: the recipes are exactly the event
// types the service emits, so a type added to payd.EventTypeAll without a
// way to trigger it fails here.
func TestTriggerCataloguesEveryEventType(t *testing.T) {
	t.Parallel()
	var want, got []string
	for _, e := range payd.EventTypeAll() {
		want = append(want, string(e))
	}
	for _, r := range recipes {
		got = append(got, r.event)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Fatalf("recipes %v, event types %v", got, want)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"trigger", "--list"}, func(string) string { return "" }, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, e := range want {
		if !strings.Contains(out.String(), e+" ") {
			t.Errorf("--list lacks %s:\n%s", e, out.String())
		}
	}
}

func triggerArgs(env *paydtest.Env, shop *paydtest.Shop, t *testing.T, extra ...string) []string {
	return append([]string{"--api-url", env.API.URL + "/v1", "--shop-id", shop.ID, "--secret-key", shop.TestKey,
		"--admin-url", env.Admin.URL, "--admin-token", env.Token, "--data-dir", t.TempDir(), "--timeout", "20s"}, extra...)
}

// TestTriggerEveryEventType triggers each type on a fresh service (stage
// M5, test clock) and sees exactly one event of that type appear in the
// shop's events.
func TestTriggerEveryEventType(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, r := range recipes {
			t.Run(r.event, func(t *testing.T) {
				env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
				shop := env.NewShop(payd.RegionRU, "")
				var out bytes.Buffer
				err := run(context.Background(), append([]string{"trigger", r.event}, triggerArgs(env, shop, t)...),
					func(string) string { return "" }, &out, &out)
				if err != nil {
					t.Fatalf("payd trigger %s: %v\n%s", r.event, err, out.String())
				}
				var list struct{ Items []struct{ ID, Type string } }
				env.As(shop, false).Get("/v1/events?type="+r.event).Expect(t, 200).Decode(t, &list)
				if len(list.Items) != 1 {
					t.Fatalf("%d %s events after the trigger, want 1\n%s", len(list.Items), r.event, out.String())
				}
				if !strings.Contains(out.String(), "Event "+r.event+" "+list.Items[0].ID) {
					t.Fatalf("the output does not name the event %s:\n%s", list.Items[0].ID, out.String())
				}
				// A recipe that moves the clock says so as it does.
				if moves := strings.Contains(r.about, "moves the clock"); moves != strings.Contains(out.String(), "test clock moved forward") {
					t.Fatalf("the recipe moves the clock: %v; the output says so: %v\n%s", moves, !moves, out.String())
				}
			})
		}
	})
}

// TestTriggerRefusals: an override of a member the request does not have,
// or of a request the recipe does not send, is refused, never ignored; an
// operator's event without operator access says so before any request.
func TestTriggerRefusals(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"payment.succeeded", "--override", "payment:amount.valeu=123.00"}, "no member amount.valeu"},
		{[]string{"payment.succeeded", "--override", "refund:amount.value=1.00"}, "sends no such request"},
		{[]string{"payment.succeeded", "--override", "amount.value=1.00"}, "REQUEST:PATH=VALUE"},
		{[]string{"no.such_type"}, "unknown event type"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"trigger"}, append(tc.args, triggerArgs(env, shop, t)...)...), func(string) string { return "" }, &out, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("trigger %v: %v, want an error naming %q", tc.args, err, tc.want)
		}
	}
	// An override that applies changes the request.
	var out bytes.Buffer
	if err := run(context.Background(), append([]string{"trigger", "payment.succeeded", "--override", "payment:amount.value=123.00"},
		triggerArgs(env, shop, t)...), func(string) string { return "" }, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	if !strings.Contains(out.String(), `"value":"123.00"`) {
		t.Fatalf("the override is not in the request:\n%s", out.String())
	}
	// No operator access.
	out.Reset()
	err := run(context.Background(), []string{"trigger", "settlement.frozen", "--api-url", env.API.URL + "/v1", "--shop-id", shop.ID,
		"--secret-key", shop.TestKey, "--data-dir", t.TempDir()}, func(string) string { return "" }, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "no operator access") || strings.Contains(out.String(), "POST") {
		t.Fatalf("settlement.frozen without operator: %v\n%s", err, out.String())
	}
}
