package payd

import (
	"context"
	"errors"
	"testing"
)

// viewStore answers every read with err.
type viewStore struct {
	Store
	err error
}

func (s viewStore) View(context.Context, func(Tx) error) error { return s.err }

// TestReadNamesItsOperation: an internal error of a read leaves the domain
// named by the read, as an idempotent operation's does, and still matches
// what it wraps; a contract error is the answer and goes out unchanged.
func TestReadNamesItsOperation(t *testing.T) {
	t.Parallel()
	p := &Principal{Shop: &Shop{ID: "shp_1"}, Mode: ModeTest}
	inner := errors.New("connection reset")
	s := NewService(Config{Store: viewStore{err: inner}, Clock: &TestClock{}})
	_, err := s.GetPayment(t.Context(), p, "pay_1")
	if FailedOp(err) != "get payment" || !errors.Is(err, inner) || err.Error() != "get payment: connection reset" {
		t.Errorf("GetPayment of a failing store = %v (operation %q), want it named get payment", err, FailedOp(err))
	}
	_, err = s.ListRefunds(t.Context(), p, &RefundListParams{})
	if FailedOp(err) != "list refunds" || !errors.Is(err, inner) {
		t.Errorf("ListRefunds of a failing store = %v (operation %q), want it named list refunds", err, FailedOp(err))
	}

	notFound := NotFound("payment")
	s = NewService(Config{Store: viewStore{err: notFound}, Clock: &TestClock{}})
	if _, err := s.GetPayment(t.Context(), p, "pay_1"); err != error(notFound) {
		t.Errorf("GetPayment's not_found = %v, want the contract error itself", err)
	}

	s = NewService(Config{Store: viewStore{}, Clock: &TestClock{}})
	if _, err := read(t.Context(), s, "get nothing", func(Tx) (int, error) { return 0, nil }); err != nil {
		t.Errorf("a read that succeeded = %v", err)
	}
}
