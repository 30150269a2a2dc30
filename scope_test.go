package payd

import (
	"context"
	"errors"
	"testing"
)

// downStore answers every read with err, as a store does while its
// database cannot be reached.
type downStore struct {
	Store
	err error
}

type downTx struct {
	Tx
	err error
}

func (s downStore) View(ctx context.Context, fn func(Tx) error) error { return fn(downTx{err: s.err}) }

func (t downTx) RefundGet(context.Context, string) (*Refund, error)         { return nil, t.err }
func (t downTx) PayoutGet(context.Context, string) (*Payout, error)         { return nil, t.err }
func (t downTx) SettlementGet(context.Context, string) (*Settlement, error) { return nil, t.err }

// An object of the principal's shop and mode is read; an id of another
// shape, no object, and another shop's or mode's object are all not_found
// (Errors: 404 not_found); a failure of the store is not turned into a
// 404, so that it reaches the merchant as the 503 it is.
func TestInScope(t *testing.T) {
	t.Parallel()
	p := &Principal{Shop: &Shop{ID: "sh_1"}, Mode: ModeTest}
	id := PrefixRefund + "01M8AV34KEEJQJH3JGNQXS5SYY"
	down := errors.New("database unreachable")
	cases := []struct {
		name    string
		id      string
		got     *Refund
		err     error
		want    bool
		wantErr error
	}{
		{"own", id, &Refund{ShopID: "sh_1", Test: true}, nil, true, nil},
		{"another object's id", PrefixPayment + "01M8AV34KEEJQJH3JGNQXS5SYY", &Refund{ShopID: "sh_1", Test: true}, nil, false, nil},
		{"none", id, nil, ErrNoRows, false, nil},
		{"another shop's", id, &Refund{ShopID: "sh_2", Test: true}, nil, false, nil},
		{"another mode's", id, &Refund{ShopID: "sh_1", Test: false}, nil, false, nil},
		{"store down", id, nil, down, false, down},
	}
	for _, c := range cases {
		r, err := inScope(t.Context(), p, PrefixRefund, "refund", c.id, func(context.Context, string) (*Refund, error) { return c.got, c.err })
		switch {
		case c.want:
			if err != nil || r != c.got {
				t.Errorf("%s: %v, %v; want the refund", c.name, r, err)
			}
		case c.wantErr != nil:
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s: error %v, want %v", c.name, err, c.wantErr)
			}
		default:
			if ErrorCodeOf(err) != CodeNotFound || r != nil {
				t.Errorf("%s: %v, %v; want not_found", c.name, r, err)
			}
		}
	}
}

// The reads of one object by id keep a store's failure as it is.
func TestGetKeepsStoreFailures(t *testing.T) {
	t.Parallel()
	down := errors.New("database unreachable")
	s := NewService(Config{Store: downStore{err: down}, Clock: &TestClock{}})
	p := &Principal{Shop: &Shop{ID: "sh_1", MerchantID: "mr_1"}, Mode: ModeTest}
	const ulid = "01M8AV34KEEJQJH3JGNQXS5SYY"
	reads := map[string]func() error{
		"GetRefund":     func() error { _, err := s.GetRefund(t.Context(), p, PrefixRefund+ulid); return err },
		"GetPayout":     func() error { _, err := s.GetPayout(t.Context(), p, PrefixPayout+ulid); return err },
		"GetSettlement": func() error { _, err := s.GetSettlement(t.Context(), p, PrefixSettlement+ulid); return err },
	}
	for name, read := range reads {
		if err := read(); !errors.Is(err, down) {
			t.Errorf("%s with the store down: %v, want the store's error", name, err)
		}
	}
}
