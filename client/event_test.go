package client_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/paydhq/payd/client"
	"github.com/paydhq/payd/webhook"
)

func eventBody(objectType, object string) []byte {
	return fmt.Appendf(nil, `{"id":"evt_1","type":"x.y","created_at":"2026-11-25T10:00:00Z","test":true,"data":{"object_type":%q,"object":%s}}`, objectType, object)
}

// TestConstructEventDecodesByObjectType: the object's Go type follows
// object_type alone, and an unknown kind is kept raw, to be skipped.
func TestConstructEventDecodesByObjectType(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		objectType string
		want       any
	}{
		{"payment", &client.Payment{}},
		{"refund", &client.Refund{}},
		{"dispute", &client.Dispute{}},
		{"settlement", &client.Settlement{}},
		{"settlement_status", &client.SettlementStatus{}},
		{"payment_link", &client.PaymentLink{}},
		{"payout", &client.Payout{}},
		{"loyalty_card", json.RawMessage{}},
	} {
		body := eventBody(tc.objectType, `{"id":"obj_1"}`)
		ev, err := client.ConstructEventAt(body, webhook.Header(now, body, "whsec_a"), []string{"whsec_a"}, now)
		if err != nil {
			t.Fatalf("%s: %v", tc.objectType, err)
		}
		if reflect.TypeOf(ev.Data.Object) != reflect.TypeOf(tc.want) || ev.Data.ObjectType != tc.objectType || ev.ID != "evt_1" {
			t.Fatalf("%s: object %T (%+v), want %T", tc.objectType, ev.Data.Object, ev, tc.want)
		}
	}
}

// TestConstructEventRefuses: a wrong secret, an old or future timestamp,
// a changed body and a missing header are refused with package webhook's
// errors; during a rotation either secret verifies.
func TestConstructEventRefuses(t *testing.T) {
	now := time.Now()
	body := eventBody("payment", `{"id":"pay_1"}`)
	good := webhook.Header(now, body, "whsec_new")
	for _, tc := range []struct {
		name    string
		body    []byte
		header  string
		secrets []string
		want    error
	}{
		{"right secret", body, good, []string{"whsec_new"}, nil},
		{"rotation: old and new", body, good, []string{"whsec_old", "whsec_new"}, nil},
		{"wrong secret", body, good, []string{"whsec_old"}, webhook.ErrNoMatch},
		{"changed body", append([]byte(" "), body...), good, []string{"whsec_new"}, webhook.ErrNoMatch},
		{"301 seconds old", body, webhook.Header(now.Add(-301*time.Second), body, "whsec_new"), []string{"whsec_new"}, webhook.ErrTimestamp},
		{"301 seconds ahead", body, webhook.Header(now.Add(301*time.Second), body, "whsec_new"), []string{"whsec_new"}, webhook.ErrTimestamp},
		{"299 seconds old", body, webhook.Header(now.Add(-299*time.Second), body, "whsec_new"), []string{"whsec_new"}, nil},
		{"no header", body, "", []string{"whsec_new"}, webhook.ErrMalformedHeader},
		{"no secret", body, good, nil, webhook.ErrNoSecrets},
	} {
		ev, err := client.ConstructEventAt(tc.body, tc.header, tc.secrets, now)
		if !errors.Is(err, tc.want) || (err == nil) != (ev != nil) {
			t.Fatalf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
