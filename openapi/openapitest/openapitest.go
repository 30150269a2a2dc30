// Package openapitest checks HTTP responses of the payd API against the
// OpenAPI document in package openapi. It is a normal (non-test) package so
// that tests of any server package can import it:
//
//	v := openapitest.New(t)
//	rec := httptest.NewRecorder()
//	handler.ServeHTTP(rec, req)
//	if err := v.ValidateRecorder(req, rec); err != nil {
//		t.Fatal(err)
//	}
//
// A response passes when its status code is documented for the operation,
// every required documented header is present and valid (X-Request-Id on all
// responses, Retry-After on 429 and 503), its Content-Type is the documented
// one and the JSON body validates against the documented JSON Schema 2020-12
// schema, including formats (date-time, date, uri). Responses documented
// without a body must have an empty body, and an error body's request_id must
// equal the X-Request-Id header.
//
// Schema validation is done by github.com/pb33f/libopenapi-validator, which
// reads OpenAPI 3.1 natively and compiles schemas with a full JSON Schema
// 2020-12 implementation (santhosh-tekuri/jsonschema), so `type: [string,
// "null"]`, `const`, `oneOf` and `pattern` are enforced as written.
//
// Consequences for the server: optional fields without a value must be
// omitted, not sent as null (only next_cursor is nullable); and responses
// must use exactly the status codes listed for the operation, because the
// document declares no `default` response.
package openapitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/paydhq/payd/openapi"
)

// BasePath is the prefix of every request path; the document's paths are
// relative to it (servers: [{url: /v1}]).
const BasePath = "/v1"

// Operation is one documented method and path.
type Operation struct {
	Method      string // upper case, e.g. "POST"
	Path        string // template relative to BasePath, e.g. "/payments/{payment_id}"
	OperationID string
}

// Validator validates responses against the embedded OpenAPI document. It is
// safe for concurrent use.
type Validator struct {
	lib         validator.Validator
	schemas     schema_validation.SchemaValidator
	errorSchema *base.Schema
	routes      []route
	// mu serialises calls into the underlying validator, whose internal
	// caches are not documented as safe for concurrent use, so that tests
	// running with t.Parallel can share one Validator.
	mu sync.Mutex
}

type route struct {
	template string
	segments []string
	item     *v3.PathItem
}

var (
	sharedOnce sync.Once
	shared     *Validator
	sharedErr  error
)

// New returns the Validator for the embedded document and fails t if the
// document cannot be loaded. Building the validator parses the document and
// compiles every schema, so it is done once per test binary and the same
// Validator is returned to every caller.
func New(t testing.TB) *Validator {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("openapitest: %v", err)
	}
	return v
}

// NewValidator is New for callers without a testing.TB. It returns the same
// shared Validator as New.
func NewValidator() (*Validator, error) {
	sharedOnce.Do(func() {
		shared, sharedErr = build(openapi.JSON())
	})
	return shared, sharedErr
}

func build(spec []byte) (*Validator, error) {
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, fmt.Errorf("parse OpenAPI document: %w", err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("build OpenAPI model: %w", err)
	}
	// Format assertions are off by default in JSON Schema 2020-12; the
	// contract requires RFC 3339 times, dates and URIs, so assert them.
	lib, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	if len(errs) > 0 {
		return nil, fmt.Errorf("create validator: %w", errors.Join(errs...))
	}
	v := &Validator{
		lib:     lib,
		schemas: schema_validation.NewSchemaValidator(config.WithFormatAssertions()),
	}
	if m.Model.Components != nil && m.Model.Components.Schemas != nil {
		if p := m.Model.Components.Schemas.GetOrZero("Error"); p != nil {
			v.errorSchema = p.Schema()
		}
	}
	if m.Model.Paths != nil {
		for tmpl, item := range m.Model.Paths.PathItems.FromOldest() {
			v.routes = append(v.routes, route{
				template: tmpl,
				segments: strings.Split(strings.Trim(tmpl, "/"), "/"),
				item:     item,
			})
		}
	}
	return v, nil
}

// Operations lists every documented operation in document order. Server
// tests can use it to check that each one is routed.
func (v *Validator) Operations() []Operation {
	var ops []Operation
	for _, r := range v.routes {
		for method, op := range r.item.GetOperations().FromOldest() {
			ops = append(ops, Operation{
				Method:      strings.ToUpper(method),
				Path:        r.template,
				OperationID: op.OperationId,
			})
		}
	}
	return ops
}

// ValidateRecorder validates the response captured by rec for req. See
// ValidateResponse.
func (v *Validator) ValidateRecorder(req *http.Request, rec *httptest.ResponseRecorder) error {
	return v.ValidateResponse(req, rec.Code, rec.Header(), rec.Body.Bytes())
}

// ValidateHTTPResponse validates resp (for example from an httptest.Server)
// for req. It reads resp.Body and replaces it with an unread copy, so the
// caller can still read it afterwards.
func (v *Validator) ValidateHTTPResponse(req *http.Request, resp *http.Response) error {
	var body []byte
	if resp.Body != nil {
		var err error
		body, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return fmt.Errorf("read response body: %w", err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return v.ValidateResponse(req, resp.StatusCode, resp.Header, body)
}

// ValidateResponse checks one response against the operation that the
// document defines for req's method and path. The request path must begin
// with BasePath ("/v1"), which is stripped before the lookup. Only the
// method and URL of req are used; its body is not read.
//
// It returns nil when the response conforms, and otherwise an error that
// lists every problem found: unknown path or method, undocumented status
// code, missing or invalid documented headers, a body on a response
// documented without one, a wrong Content-Type, a body that does not match
// the schema, and an error body whose request_id differs from X-Request-Id.
func (v *Validator) ValidateResponse(req *http.Request, status int, header http.Header, body []byte) error {
	if req == nil || req.URL == nil {
		return errors.New("openapitest: request with a URL is required")
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	rel, ok := stripBase(req.URL.Path)
	if !ok {
		return fmt.Errorf("openapitest: request path %q does not begin with %s", req.URL.Path, BasePath)
	}
	rt := v.match(rel)
	if rt == nil {
		return fmt.Errorf("openapitest: %s %s: no documented path matches %q", method, req.URL.Path, rel)
	}
	op := operationFor(rt.item, method)
	if op == nil {
		return fmt.Errorf("openapitest: %s %s: method %s is not documented for %s (documented: %s)",
			method, req.URL.Path, method, rt.template, strings.Join(methodsOf(rt.item), ", "))
	}
	if header == nil {
		header = http.Header{}
	}

	where := fmt.Sprintf("%s %s (%s %s, status %d)", method, req.URL.Path, method, rt.template, status)
	var problems []string

	// The status check is done here, not left to the library, so that the
	// message can list the codes that are documented.
	resp, documented := lookupResponse(op, status)
	if !documented {
		return fmt.Errorf("openapitest: %s: status %d is not documented; documented: %s",
			where, status, strings.Join(codesOf(op), ", "))
	}
	if (resp.Content == nil || resp.Content.Len() == 0) && len(body) > 0 {
		problems = append(problems, fmt.Sprintf("response is documented without a body but has %d bytes: %.200q", len(body), body))
	}
	if status >= 400 && len(body) > 0 {
		if p := checkRequestID(header, body); p != "" {
			problems = append(problems, p)
		}
	}

	// The route is already resolved, so the library gets the path item and
	// template directly and only picks the operation by the request method,
	// which is why the copy carries the normalised method. The request path
	// appears only in its messages.
	libReq := req.Clone(req.Context())
	libReq.Method = method
	libResp := &http.Response{
		StatusCode: status,
		Header:     header.Clone(),
		Request:    libReq,
		Body:       http.NoBody,
	}
	if len(body) > 0 {
		libResp.Body = io.NopCloser(bytes.NewReader(body))
		libResp.ContentLength = int64(len(body))
	}
	v.mu.Lock()
	ok, verrs := v.lib.GetResponseBodyValidator().ValidateResponseBodyWithPathItem(libReq, libResp, rt.item, rt.template)
	v.mu.Unlock()
	if !ok || len(verrs) > 0 {
		problems = append(problems, formatErrors(verrs)...)
		if len(verrs) == 0 {
			problems = append(problems, "response rejected without details")
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("openapitest: %s:\n  - %s", where, strings.Join(problems, "\n  - "))
}

// ValidateErrorResponse checks a response that has no documented operation,
// such as the answer to an unknown route or a wrong method, which the
// contract requires to be an Error object with X-Request-Id. Use
// ValidateResponse for documented operations.
func (v *Validator) ValidateErrorResponse(status int, header http.Header, body []byte) error {
	var problems []string
	if status < 400 || status > 599 {
		problems = append(problems, fmt.Sprintf("status %d is not an error status", status))
	}
	if header == nil {
		header = http.Header{}
	}
	if header.Get("X-Request-Id") == "" {
		problems = append(problems, "missing required header X-Request-Id")
	}
	if ct := header.Get("Content-Type"); !isJSON(ct) {
		problems = append(problems, fmt.Sprintf("Content-Type %q is not application/json", ct))
	}
	schema := v.errorSchema
	if schema == nil {
		return errors.New("openapitest: the document has no Error schema")
	}
	if !json.Valid(body) {
		problems = append(problems, fmt.Sprintf("body is not valid JSON: %.200q", body))
	} else {
		v.mu.Lock()
		_, verrs := v.schemas.ValidateSchemaBytesWithVersion(schema, body, 3.1)
		v.mu.Unlock()
		problems = append(problems, formatErrors(verrs)...)
		if p := checkRequestID(header, body); p != "" {
			problems = append(problems, p)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("openapitest: error response (status %d):\n  - %s", status, strings.Join(problems, "\n  - "))
}

func stripBase(p string) (string, bool) {
	if !strings.HasPrefix(p, BasePath+"/") {
		return "", false
	}
	return strings.TrimPrefix(p, BasePath), true
}

// match finds the path template for a request path relative to BasePath.
// Literal segments beat parameters when two templates fit, as OpenAPI
// requires; the current document has no such overlap, but the rule keeps the
// lookup correct if one is added.
func (v *Validator) match(rel string) *route {
	segs := strings.Split(strings.Trim(rel, "/"), "/")
	var best *route
	bestLiterals := -1
	for i := range v.routes {
		r := &v.routes[i]
		if len(r.segments) != len(segs) {
			continue
		}
		literals := 0
		fits := true
		for j, s := range r.segments {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
				if segs[j] == "" {
					fits = false
					break
				}
				continue
			}
			if s != segs[j] {
				fits = false
				break
			}
			literals++
		}
		if fits && literals > bestLiterals {
			best, bestLiterals = r, literals
		}
	}
	return best
}

func operationFor(item *v3.PathItem, method string) *v3.Operation {
	for m, op := range item.GetOperations().FromOldest() {
		if strings.EqualFold(m, method) {
			return op
		}
	}
	return nil
}

func methodsOf(item *v3.PathItem) []string {
	var ms []string
	for m := range item.GetOperations().FromOldest() {
		ms = append(ms, strings.ToUpper(m))
	}
	return ms
}

// lookupResponse finds the documented response for status: the exact code,
// then a range such as "4XX", then "default".
func lookupResponse(op *v3.Operation, status int) (*v3.Response, bool) {
	if op.Responses == nil {
		return nil, false
	}
	if op.Responses.Codes != nil {
		if r := op.Responses.Codes.GetOrZero(strconv.Itoa(status)); r != nil {
			return r, true
		}
		if r := op.Responses.Codes.GetOrZero(fmt.Sprintf("%dXX", status/100)); r != nil {
			return r, true
		}
	}
	if op.Responses.Default != nil {
		return op.Responses.Default, true
	}
	return nil, false
}

func codesOf(op *v3.Operation) []string {
	var codes []string
	if op.Responses != nil && op.Responses.Codes != nil {
		for c := range op.Responses.Codes.KeysFromOldest() {
			codes = append(codes, c)
		}
	}
	sort.Strings(codes)
	if op.Responses != nil && op.Responses.Default != nil {
		codes = append(codes, "default")
	}
	return codes
}

// checkRequestID enforces the rule that an error body repeats X-Request-Id
// as request_id. A body that is not an object is left to schema validation.
func checkRequestID(header http.Header, body []byte) string {
	var e struct {
		RequestID *string `json:"request_id"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.RequestID == nil {
		return ""
	}
	if got := header.Get("X-Request-Id"); got != "" && *e.RequestID != got {
		return fmt.Sprintf("error body request_id %q differs from X-Request-Id header %q", *e.RequestID, got)
	}
	return ""
}

func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

func formatErrors(errs []*liberrors.ValidationError) []string {
	var out []string
	for _, e := range errs {
		if e == nil {
			continue
		}
		msg := e.Message
		if e.Reason != "" && e.Reason != e.Message {
			msg += ": " + e.Reason
		}
		for _, f := range pruneOneOf(e.SchemaValidationErrors) {
			loc := f.FieldPath
			if loc == "" {
				loc = "/" + strings.Join(f.InstancePath, "/")
			}
			msg += fmt.Sprintf("\n      at %s: %s", loc, f.Reason)
			if f.KeywordLocation != "" {
				msg += " (schema " + f.KeywordLocation + ")"
			}
		}
		out = append(out, msg)
	}
	return out
}

// discriminatorMiss matches the keyword location, relative to a oneOf branch,
// of a failed `const` on one of the branch's own properties. In this document
// that is how a branch says "not my kind" (object_type of Event.data, type of
// the confirmation and payout destination variants).
var discriminatorMiss = regexp.MustCompile(`^(/\$ref)?/properties/[^/]+/const$`)

// pruneOneOf removes noise from oneOf failures. When a oneOf fails, the
// schema library reports the failures of every branch, so a Payment event
// with one missing field also lists why the object is not a Refund, a
// Dispute and so on. Branches whose discriminator const did not match are
// dropped when another branch was the intended one; when no branch matched
// (an unknown kind) only the const mismatches are kept. Only the message is
// affected: the response has already been rejected.
func pruneOneOf(fs []*liberrors.SchemaValidationFailure) []*liberrors.SchemaValidationFailure {
	type branchKey struct{ parent, branch string }
	branchOf := func(loc string) (branchKey, string, bool) {
		i := strings.Index(loc, "/oneOf/")
		if i < 0 {
			return branchKey{}, "", false
		}
		rest := loc[i+len("/oneOf/"):]
		n, tail, _ := strings.Cut(rest, "/")
		if tail != "" {
			tail = "/" + tail
		}
		return branchKey{loc[:i], n}, tail, true
	}
	missed := map[branchKey]bool{}
	branches := map[string]map[string]bool{}
	for _, f := range fs {
		if f == nil {
			continue
		}
		if k, tail, ok := branchOf(f.KeywordLocation); ok {
			if branches[k.parent] == nil {
				branches[k.parent] = map[string]bool{}
			}
			branches[k.parent][k.branch] = true
			if discriminatorMiss.MatchString(tail) {
				missed[k] = true
			}
		}
	}
	var out []*liberrors.SchemaValidationFailure
	for _, f := range fs {
		if f == nil {
			continue
		}
		k, tail, ok := branchOf(f.KeywordLocation)
		if !ok || !missed[k] {
			out = append(out, f)
			continue
		}
		intended := false
		for b := range branches[k.parent] {
			if !missed[branchKey{k.parent, b}] {
				intended = true
				break
			}
		}
		if !intended && discriminatorMiss.MatchString(tail) {
			out = append(out, f)
		}
	}
	return out
}
