package payd

import (
	"errors"
	"fmt"
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
	if op := FailedOp(fmt.Errorf("handler: %w", err)); op != "capture payment" {
		t.Errorf("FailedOp = %q, want the operation through further wrapping", op)
	}
	if op := FailedOp(inner); op != "" {
		t.Errorf("FailedOp of an unnamed error = %q", op)
	}
	ce := Invalid("amount", "bad")
	if got := withOp("capture payment", ce); got != error(ce) {
		t.Errorf("a contract error was changed: %v", got)
	}
	if withOp("x", nil) != nil {
		t.Error("nil became an error")
	}
}
