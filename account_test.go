package payd_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
)

// handClock is a clock moved by hand.
type handClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *handClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// userBundle is a merchant on a fresh store, with the domain's service
// and the account service that makes its dashboard users, built as serve
// builds them.
type userBundle struct {
	ctx   context.Context
	svc   *payd.Service
	acc   *account.Service
	store *sqlstore.Store
	clock *handClock
	m     *payd.Merchant
}

func setupUsers(t *testing.T, be paydtest.Backend) *userBundle {
	t.Helper()
	return setupUsersWith(t, be, nil)
}

// setupUsersWith is setupUsers with the domain service's Config changed by
// edit; the account service runs on the same clock.
func setupUsersWith(t testing.TB, be paydtest.Backend, edit func(*payd.Config)) *userBundle {
	t.Helper()
	ctx := t.Context()
	store, err := sqlstore.Open(ctx, be.DatabaseURL(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	clock := &handClock{now: time.Date(2026, 3, 1, 10, 0, 15, 0, time.UTC)}
	cfg := payd.Config{Store: store, Clock: clock, IDs: payd.NewIDGen(), PublicURL: "https://payd.test",
		WebhookAllowHosts: []string{"hooks.example.test"}}
	if edit != nil {
		edit(&cfg)
	}
	svc := payd.NewService(cfg)
	acc := account.New(account.Config{Store: store, Clock: cfg.Clock, IDs: cfg.IDs, PublicURL: cfg.PublicURL, SetupPath: "/dashboard/setup/"})
	m, err := svc.CreateMerchant(ctx, payd.MerchantCreate{Name: "M"})
	if err != nil {
		t.Fatal(err)
	}
	return &userBundle{ctx: ctx, svc: svc, acc: acc, store: store, clock: clock, m: m}
}

// user creates a user of the bundle's merchant with a password.
func (b *userBundle) user(t testing.TB, email string, role payd.Role) *payd.User {
	t.Helper()
	u, tok, err := b.acc.CreateUser(b.ctx, nil, b.m.ID, email, role)
	if err != nil {
		t.Fatal(err)
	}
	if u, err = b.acc.SetPassword(b.ctx, tok, "correct horse battery", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	return u
}

func wantCode(t *testing.T, what string, err error, code payd.ErrorCode, param string) {
	t.Helper()
	var e *payd.Error
	if !errors.As(err, &e) || e.Code != code || e.Param != param {
		t.Errorf("%s: error %v, want %s (%q)", what, err, code, param)
	}
}

func actorOf(u *payd.User) *payd.Actor {
	return &payd.Actor{UserID: u.ID, Email: u.Email, Addr: "192.0.2.9"}
}
