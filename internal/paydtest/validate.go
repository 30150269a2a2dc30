package paydtest

import (
	"strings"
	"testing"

	"github.com/paydhq/payd/openapi/openapitest"
)

// contractValidator checks every merchant API answer against the OpenAPI
// document, so drift between the code and the contract fails a test.
type contractValidator struct{}

func init() { defaultValidator = contractValidator{} }

func (contractValidator) Validate(t testing.TB, r *Response) {
	t.Helper()
	v := openapitest.New(t)
	err := v.ValidateResponse(r.Request, r.Status, r.Header, r.Body)
	if err != nil && (r.Status == 404 || r.Status == 405) &&
		(strings.Contains(err.Error(), "no documented path") || strings.Contains(err.Error(), "is not documented for")) {
		// Unknown routes and wrong methods have no operation; they must
		// still answer with the Error object.
		err = v.ValidateErrorResponse(r.Status, r.Header, r.Body)
	}
	if err != nil {
		t.Errorf("contract: %v\nbody: %.500s", err, r.Body)
	}
}
