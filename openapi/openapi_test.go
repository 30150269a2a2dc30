package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/paydhq/payd/openapi"
)

// specOperations is every operation of the Merchant Payments API v1
// specification, copied by hand from its Endpoints section, so that an
// operation dropped from (or added to) openapi.yaml by mistake is noticed.
// The value is the stage that must answer 501 until it is delivered ("" for
// operations of the current build).
var specOperations = map[string]string{
	"POST /payments":                               "",
	"GET /payments":                                "",
	"GET /payments/{payment_id}":                   "",
	"POST /payments/{payment_id}/capture":          "",
	"POST /payments/{payment_id}/cancel":           "",
	"POST /refunds":                                "",
	"GET /refunds":                                 "",
	"GET /refunds/{refund_id}":                     "",
	"GET /disputes":                                "M2",
	"GET /disputes/{dispute_id}":                   "M2",
	"POST /disputes/{dispute_id}/evidence/uploads": "M2",
	"POST /disputes/{dispute_id}/evidence":         "M2",
	"POST /payment-links":                          "M5",
	"GET /payment-links":                           "M5",
	"GET /payment-links/{link_id}":                 "M5",
	"POST /payment-links/{link_id}/deactivate":     "M5",
	"GET /payment-methods":                         "",
	"GET /events":                                  "",
	"GET /events/{event_id}":                       "",
	"POST /events/{event_id}/resend":               "",
	"POST /webhook-endpoints":                      "",
	"GET /webhook-endpoints":                       "",
	"GET /webhook-endpoints/{endpoint_id}":         "",
	"PATCH /webhook-endpoints/{endpoint_id}":       "",
	"DELETE /webhook-endpoints/{endpoint_id}":      "",
	"GET /settlements":                             "",
	"GET /settlements/{settlement_id}":             "",
	"GET /balance":                                 "",
	"GET /shop":                                    "",
	"POST /payouts":                                "M5",
	"GET /payouts":                                 "M5",
	"GET /payouts/{payout_id}":                     "M5",
	"POST /test/payments/{payment_id}/simulate":    "",
	"POST /test/payments/{payment_id}/disputes":    "M2",
	"POST /test/disputes/{dispute_id}/simulate":    "M2",
	"GET /openapi.json":                            "",
	// Ours, in the test namespace (docs/changelog.md, 2026-11-26): the
	// sandbox event feed of payd listen, and the sandbox reset.
	"GET /test/events": "",
	"POST /test/reset": "",
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// loadJSON decodes the served document into generic JSON values.
func loadJSON(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(openapi.JSON()))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("openapi.JSON() is not a JSON object: %v", err)
	}
	return doc
}

func TestJSONIsTheYAMLDocument(t *testing.T) {
	js := openapi.JSON()
	if !json.Valid(js) {
		t.Fatal("openapi.JSON() is not valid JSON")
	}

	// Compare by value: decode both forms and re-encode canonically.
	var fromYAML any
	if err := yaml.Unmarshal(openapi.YAML(), &fromYAML); err != nil {
		t.Fatalf("openapi.yaml does not parse: %v", err)
	}
	var fromJSON any
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	a, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatalf("YAML form cannot be encoded as JSON: %v", err)
	}
	b, _ := json.Marshal(fromJSON)
	if !bytes.Equal(a, b) {
		t.Fatal("openapi.JSON() differs in content from openapi.yaml")
	}

	// Key order is kept, so the served document starts with its header.
	if !bytes.HasPrefix(js, []byte(`{"openapi":"3.1.0","info":`)) {
		t.Fatalf("served JSON does not start with the openapi and info keys: %.60s", js)
	}

	// A caller modifying the returned slice must not change later results.
	js[0] = 'X'
	if openapi.JSON()[0] != '{' {
		t.Fatal("JSON() returns shared memory")
	}
}

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	doc, err := libopenapi.NewDocument(openapi.JSON())
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if got := doc.GetVersion(); got != "3.1.0" {
		t.Fatalf("openapi version = %q, want 3.1.0", got)
	}
	if _, err := doc.BuildV3Model(); err != nil {
		t.Fatalf("build model: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	// Validates the whole document against the OpenAPI 3.1 meta-schema,
	// including every Schema Object against the 3.1 schema dialect.
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, f := range e.SchemaValidationErrors {
				t.Errorf("    at %s: %s", f.FieldPath, f.Reason)
			}
		}
	}

	raw := loadJSON(t)
	if servers, _ := raw["servers"].([]any); len(servers) != 1 || servers[0].(map[string]any)["url"] != "/v1" {
		t.Errorf("servers = %v, want [{url: /v1}]", raw["servers"])
	}
}

// TestAllRefsResolve walks every $ref in the document. The parser tolerates
// some broken references by leaving the target empty, which would make the
// validator accept anything at that place.
func TestAllRefsResolve(t *testing.T) {
	raw := loadJSON(t)
	var walk func(node any, at string)
	count := 0
	walk = func(node any, at string) {
		switch n := node.(type) {
		case map[string]any:
			if ref, ok := n["$ref"].(string); ok {
				count++
				if _, err := resolvePointer(raw, ref); err != nil {
					t.Errorf("%s: $ref %q: %v", at, ref, err)
				}
			}
			for k, v := range n {
				walk(v, at+"/"+k)
			}
		case []any:
			for i, v := range n {
				walk(v, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(raw, "#")
	if count == 0 {
		t.Fatal("no $ref found; the walk is broken")
	}
}

func resolvePointer(root map[string]any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("only local references are allowed")
	}
	var cur any = root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not an object", part)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("%q not found", part)
		}
	}
	return cur, nil
}

// deref follows $ref chains so that the convention checks below see the
// effective object.
func deref(t *testing.T, root map[string]any, node any) map[string]any {
	t.Helper()
	for i := 0; i < 10; i++ {
		m, ok := node.(map[string]any)
		if !ok {
			t.Fatalf("expected an object, got %T", node)
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var err error
		if node, err = resolvePointer(root, ref); err != nil {
			t.Fatalf("$ref %q: %v", ref, err)
		}
	}
	t.Fatal("$ref chain too long")
	return nil
}

type docOp struct {
	key       string // "METHOD /path"
	method    string
	path      string
	op        map[string]any
	pathLevel map[string]any
}

func operations(t *testing.T, raw map[string]any) []docOp {
	t.Helper()
	var ops []docOp
	paths, _ := raw["paths"].(map[string]any)
	for p, item := range paths {
		pi := item.(map[string]any)
		for _, m := range httpMethods {
			if op, ok := pi[m].(map[string]any); ok {
				ops = append(ops, docOp{key: strings.ToUpper(m) + " " + p, method: strings.ToUpper(m), path: p, op: op, pathLevel: pi})
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].key < ops[j].key })
	return ops
}

func TestEveryOperationOfTheSpecIsDocumented(t *testing.T) {
	raw := loadJSON(t)
	documented := map[string]bool{}
	ids := map[string]string{}
	for _, o := range operations(t, raw) {
		documented[o.key] = true
		id, _ := o.op["operationId"].(string)
		if id == "" {
			t.Errorf("%s has no operationId", o.key)
		} else if other, dup := ids[id]; dup {
			t.Errorf("operationId %q used by %s and %s", id, other, o.key)
		}
		ids[id] = o.key
		if _, ok := specOperations[o.key]; !ok {
			t.Errorf("%s is documented but is not an operation of the spec", o.key)
		}
	}
	for key := range specOperations {
		if !documented[key] {
			t.Errorf("%s is missing from the document", key)
		}
	}
}

func TestOperationConventions(t *testing.T) {
	raw := loadJSON(t)

	// Basic authentication is the document-wide default.
	sec, _ := raw["security"].([]any)
	if len(sec) != 1 || sec[0].(map[string]any)["basicAuth"] == nil {
		t.Errorf("top-level security = %v, want [{basicAuth: []}]", raw["security"])
	}
	scheme := deref(t, raw, raw["components"].(map[string]any)["securitySchemes"].(map[string]any)["basicAuth"])
	if scheme["type"] != "http" || scheme["scheme"] != "basic" {
		t.Errorf("basicAuth scheme = %v", scheme)
	}

	for _, o := range operations(t, raw) {
		stage := specOperations[o.key]
		public := o.key == "GET /openapi.json"

		// Security: only the document itself is public.
		s, hasOwn := o.op["security"]
		switch {
		case public && (!hasOwn || len(s.([]any)) != 0):
			t.Errorf("%s must declare security: []", o.key)
		case !public && hasOwn:
			t.Errorf("%s overrides the basicAuth requirement", o.key)
		}

		// Idempotency-Key on every POST and PATCH.
		if o.method == "POST" || o.method == "PATCH" {
			found := false
			for _, p := range append(asList(o.pathLevel["parameters"]), asList(o.op["parameters"])...) {
				pm := deref(t, raw, p)
				if pm["in"] == "header" && pm["name"] == "Idempotency-Key" {
					found = true
					sch := deref(t, raw, pm["schema"])
					if fmt.Sprint(sch["minLength"]) != "8" || fmt.Sprint(sch["maxLength"]) != "128" {
						t.Errorf("%s: Idempotency-Key must be 8..128 characters, schema %v", o.key, sch)
					}
				}
			}
			if !found {
				t.Errorf("%s has no Idempotency-Key header parameter", o.key)
			}
		}

		responses, _ := o.op["responses"].(map[string]any)
		if _, ok := responses["default"]; ok {
			// A default response would make every status code "documented"
			// and disable the undocumented-status check of openapitest.
			t.Errorf("%s declares a default response", o.key)
		}
		hasSuccess := false
		for code, r := range responses {
			resp := deref(t, raw, r)
			if strings.HasPrefix(code, "2") {
				hasSuccess = true
			}
			headers, _ := resp["headers"].(map[string]any)
			rid, ok := headers["X-Request-Id"]
			if !ok || deref(t, raw, rid)["required"] != true {
				t.Errorf("%s %s: X-Request-Id is not a required header", o.key, code)
			}
			if code == "429" || code == "503" {
				ra, ok := headers["Retry-After"]
				if !ok {
					t.Errorf("%s %s: no Retry-After header", o.key, code)
				} else {
					h := deref(t, raw, ra)
					if h["required"] != true || deref(t, raw, h["schema"])["type"] != "integer" {
						t.Errorf("%s %s: Retry-After must be a required integer header", o.key, code)
					}
				}
			}
		}
		if !hasSuccess {
			t.Errorf("%s has no 2xx response", o.key)
		}

		// 400 everywhere: any request can be malformed (oversized headers,
		// a bad query parameter).
		want := []string{"400", "429", "500"}
		if !public {
			want = append(want, "401", "403", "422", "503")
		}
		if o.method == "POST" || o.method == "PATCH" {
			want = append(want, "409")
		}
		if strings.Contains(o.path, "{") {
			want = append(want, "404")
		}
		for _, c := range want {
			if _, ok := responses[c]; !ok {
				t.Errorf("%s does not document %s", o.key, c)
			}
		}
		_, has501 := responses["501"]
		if stage != "" && !has501 {
			t.Errorf("%s is a stage %s operation without a 501 response", o.key, stage)
		}
		// POST /payments is implemented but answers 501 for an embedded
		// confirmation, which belongs to stage M5.
		if stage == "" && has501 && o.key != "POST /payments" {
			t.Errorf("%s is implemented in this build but documents 501", o.key)
		}
		if stage != "" {
			if d, _ := o.op["description"].(string); !strings.Contains(d, stage) {
				t.Errorf("%s: description does not name stage %s", o.key, stage)
			}
		}
	}
}

// TestListResponses checks the list shapes: cursor lists require a nullable
// next_cursor, and the three unpaginated lists have items only.
func TestListResponses(t *testing.T) {
	raw := loadJSON(t)
	unpaginated := map[string]bool{
		"GET /payment-methods":   true,
		"GET /webhook-endpoints": true,
		"GET /balance":           true,
		// Read by after_sequence, not by cursor.
		"GET /test/events": true,
	}
	for _, o := range operations(t, raw) {
		if o.method != "GET" || strings.HasSuffix(o.path, "}") || o.path == "/shop" || o.path == "/openapi.json" {
			continue
		}
		resp := deref(t, raw, o.op["responses"].(map[string]any)["200"])
		schema := deref(t, raw, resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"])
		props := schema["properties"].(map[string]any)
		required := fmt.Sprint(schema["required"])
		if _, ok := props["items"]; !ok || !strings.Contains(required, "items") {
			t.Errorf("%s: items is not a required property", o.key)
		}
		nc, hasCursor := props["next_cursor"]
		if unpaginated[o.key] {
			if hasCursor {
				t.Errorf("%s must not have next_cursor", o.key)
			}
			continue
		}
		if !hasCursor || !strings.Contains(required, "next_cursor") {
			t.Errorf("%s: next_cursor is not a required property", o.key)
			continue
		}
		if typ := fmt.Sprint(deref(t, raw, nc)["type"]); typ != "[string null]" {
			t.Errorf("%s: next_cursor type = %s, want [string, null]", o.key, typ)
		}
		hasLimit := false
		for _, p := range asList(o.op["parameters"]) {
			if deref(t, raw, p)["name"] == "limit" {
				hasLimit = true
			}
		}
		if !hasLimit {
			t.Errorf("%s has no limit parameter", o.key)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestSchemasAreValidJSONSchema checks every Schema Object of the document
// against the JSON Schema 2020-12 meta-schema and compiles it. The OpenAPI
// meta-schema used by TestDocumentIsValidOpenAPI31 does not descend into
// Schema Objects, so a typo such as `type: strng` or an invalid regular
// expression would otherwise only surface when a response happens to reach
// that schema.
var inlineName = strings.NewReplacer("#", "", "/", ".", "{", "", "}", "", "~", "", "$", "")

func TestSchemasAreValidJSONSchema(t *testing.T) {
	raw := loadJSON(t)
	defs := map[string]any{}
	for name, s := range raw["components"].(map[string]any)["schemas"].(map[string]any) {
		defs[name] = s
	}
	// Inline schemas of parameters, headers and media types.
	var collect func(node any, at string)
	collect = func(node any, at string) {
		switch n := node.(type) {
		case map[string]any:
			for k, v := range n {
				if k == "schema" {
					// Name the definition after its location so that a
					// failure points at it.
					defs["inline"+inlineName.Replace(at)] = v
					continue
				}
				collect(v, at+"/"+k)
			}
		case []any:
			for i, v := range n {
				collect(v, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	collect(raw["paths"], "#/paths")
	collect(raw["webhooks"], "#/webhooks")
	collect(raw["components"].(map[string]any)["parameters"], "#/components/parameters")
	collect(raw["components"].(map[string]any)["headers"], "#/components/headers")
	collect(raw["components"].(map[string]any)["responses"], "#/components/responses")

	// Re-home the schemas under $defs of one JSON Schema document, pointing
	// the references at their new place, and round-trip through JSON so that
	// numbers have the types the compiler expects.
	b, err := json.Marshal(map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$defs":   defs,
	})
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`))
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	const url = "mem:///schemas.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	// Compiling the root validates the whole document, all $defs included,
	// against the 2020-12 meta-schema.
	if _, err := c.Compile(url); err != nil {
		t.Fatalf("schemas are not valid JSON Schema 2020-12: %v", err)
	}
	// Compiling each definition also compiles its regular expressions.
	for name := range defs {
		if _, err := c.Compile(url + "#/$defs/" + name); err != nil {
			t.Errorf("schema %s does not compile: %v", name, err)
		}
	}
}

// TestForStage checks the served document of each stage: an operation
// marked x-stage is there only from its stage on, while the operations the
// contract declares in advance are there at every stage.
func TestForStage(t *testing.T) {
	paths := func(stage int) map[string]any {
		var doc struct {
			Paths map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(openapi.ForStage(stage), &doc); err != nil {
			t.Fatalf("stage %d: %v", stage, err)
		}
		return doc.Paths
	}
	sandbox := []string{"/test/payments/{payment_id}/disputes", "/test/disputes/{dispute_id}/simulate"}
	declared := []string{"/disputes", "/disputes/{dispute_id}", "/disputes/{dispute_id}/evidence/uploads", "/payouts",
		"/payment-links", "/payment-links/{link_id}", "/payment-links/{link_id}/deactivate", "/test/payments/{payment_id}/simulate"}
	for _, tt := range []struct {
		stage       int
		wantSandbox bool
	}{{1, false}, {2, true}, {5, true}} {
		got := paths(tt.stage)
		for _, p := range sandbox {
			if _, ok := got[p]; ok != tt.wantSandbox {
				t.Errorf("stage %d: path %s present %v, want %v", tt.stage, p, ok, tt.wantSandbox)
			}
		}
		for _, p := range declared {
			if _, ok := got[p]; !ok {
				t.Errorf("stage %d: declared path %s missing", tt.stage, p)
			}
		}
	}
	if !bytes.Equal(openapi.ForStage(99), openapi.JSON()) {
		t.Error("an unknown stage does not get the complete document")
	}
}
