package payd

import (
	"errors"
	"testing"
)

// TestWithOp: an internal error leaves the domain named by its operation
// and still matches what it wraps; a contract error goes out unchanged.
func TestWithOp(t *testing.T) {
	inner := errors.New("connection reset")
	err := withOp("capture payment", inner)
	if err.Error() != "capture payment: connection reset" || !errors.Is(err, inner) {
		t.Errorf("withOp = %v", err)
	}
	ce := Invalid("amount", "bad")
	if got := withOp("capture payment", ce); got != error(ce) {
		t.Errorf("a contract error was changed: %v", got)
	}
	if withOp("x", nil) != nil {
		t.Error("nil became an error")
	}
}
