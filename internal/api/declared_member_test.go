package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestEveryDeclaredMemberIsKnown: every member the served OpenAPI document
// declares in a request body, at any depth and in every kind of a oneOf,
// is one the server reads, so that a client generated from the document
// (the Go client is one) never sends a member the server refuses as
// unknown. Each body carries every declared member with a value of its
// type; whatever else the server says of the values, it must not call a
// member unknown.
func TestEveryDeclaredMemberIsKnown(t *testing.T) {
	t.Parallel()
	// The decoder is the same on both databases; one is enough.
	env := paydtest.Start(t, paydtest.Backend{Name: "sqlite"}, &paydtest.Options{Stage: payd.StageM5})
	c := env.As(env.NewShop(payd.RegionRU, ""), false)
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	env.Do("GET", env.API.URL, "/v1/openapi.json", nil, nil).Expect(t, 200).Decode(t, &doc)
	fill := strings.NewReplacer("{payment_id}", "pay_00000000000000000000000000", "{dispute_id}", "dsp_00000000000000000000000000",
		"{endpoint_id}", "whe_00000000000000000000000000", "{link_id}", "pl_00000000000000000000000000",
		"{payout_id}", "po_00000000000000000000000000", "{refund_id}", "rf_00000000000000000000000000", "{event_id}", "evt_00000000000000000000000000")
	n := 0
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op struct {
				RequestBody struct {
					Content map[string]struct {
						Schema json.RawMessage `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			}
			if json.Unmarshal(raw, &op) != nil {
				continue
			}
			media, ok := op.RequestBody.Content["application/json"]
			if !ok {
				continue
			}
			body := example(t, doc.Components.Schemas, media.Schema, 0)
			n++
			r := c.Do(strings.ToUpper(method), "/v1"+fill.Replace(path), body, "Idempotency-Key", fmt.Sprintf("declared-member-%03d", n))
			if strings.Contains(string(r.Body), "unknown field") {
				t.Errorf("%s %s: a declared member is refused as unknown\n%s\nbody %s", strings.ToUpper(method), path, r.Body, body)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d bodies found in the document", n)
	}
}

// example is a value of schema with every declared member set: objects
// carry all their properties (of every kind of a oneOf or anyOf, and of
// every part of an allOf), strings their first enum value or a date-time
// where the format asks for one.
func example(t *testing.T, schemas map[string]json.RawMessage, raw json.RawMessage, depth int) any {
	t.Helper()
	var s struct {
		Ref                  string                     `json:"$ref"`
		Type                 any                        `json:"type"`
		Format               string                     `json:"format"`
		Enum                 []any                      `json:"enum"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Items                json.RawMessage            `json:"items"`
		OneOf                []json.RawMessage          `json:"oneOf"`
		AnyOf                []json.RawMessage          `json:"anyOf"`
		AllOf                []json.RawMessage          `json:"allOf"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	if s.Ref != "" {
		return example(t, schemas, schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")], depth)
	}
	if parts := append(append(s.OneOf, s.AnyOf...), s.AllOf...); len(parts) > 0 {
		out := map[string]any{}
		for _, p := range parts {
			if m, ok := example(t, schemas, p, depth).(map[string]any); ok {
				for k, v := range m {
					out[k] = v
				}
			}
		}
		return out
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	typ, _ := s.Type.(string)
	if list, ok := s.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch {
	case typ == "string" && s.Format == "date-time":
		return "2030-01-31T12:00:00Z"
	case typ == "string":
		return "x"
	case typ == "integer" || typ == "number":
		return 1
	case typ == "boolean":
		return true
	case typ == "array":
		if len(s.Items) == 0 || depth > 4 {
			return []any{}
		}
		return []any{example(t, schemas, s.Items, depth+1)}
	}
	out := map[string]any{}
	if depth > 4 {
		return out
	}
	for name, p := range s.Properties {
		out[name] = example(t, schemas, p, depth+1)
	}
	if len(s.Properties) == 0 && len(s.AdditionalProperties) > 0 {
		out["k"] = "v" // a free-form map (metadata)
	}
	return out
}
