package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// httpFloor is the least an authenticated GET must do without a
// database: a bare net/http server in this process that checks the Basic
// credentials as payd does (the secret's hash against the stored one, in
// constant time) and sends a payment's JSON as payd answers it, read once
// from payd and sent as it is, as payd sends a payment's stored rendering.
// It is the HTTP half of a GET's ceiling; pgbench -S
// (pgbenchFloor.runSelect) is the database's half.
type httpFloor struct {
	srv    *http.Server
	base   string
	shopID string
	hash   []byte
	body   []byte
	// list and events are pages of 100 payments and events as payd
	// answers GET /v1/payments?limit=100 and /v1/events?limit=100, read
	// once, the bodies of the list floors.
	list, events []byte
}

// startHTTPFloor serves the floor on a free loopback port, answering for
// a's shop with the body of one of a's payments.
func startHTTPFloor(ctx context.Context, a *api) (*httpFloor, error) {
	a.mu.Lock()
	ids := a.ids
	a.mu.Unlock()
	if len(ids) == 0 {
		return nil, errNoPayments
	}
	raw, err := a.do(ctx, http.MethodGet, "/v1/payments/"+ids[0], nil, nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	if !json.Valid(raw) {
		return nil, errors.New("the payment read from payd is not JSON")
	}
	f := &httpFloor{shopID: a.shopID, hash: payd.HashSecret(a.secret), body: raw}
	if f.list, err = a.do(ctx, http.MethodGet, "/v1/payments?limit=100", nil, nil, http.StatusOK); err != nil {
		return nil, err
	}
	if f.events, err = a.do(ctx, http.MethodGet, "/v1/events?limit=100", nil, nil, http.StatusOK); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/payments/{id}", f.get)
	mux.HandleFunc("GET /v1/payments", f.page(&f.list))
	mux.HandleFunc("GET /v1/events", f.page(&f.events))
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	f.base = "http://" + ln.Addr().String()
	go f.srv.Serve(ln)
	return f, nil
}

func (f *httpFloor) get(w http.ResponseWriter, r *http.Request) {
	if f.authed(w, r) && strings.HasPrefix(r.PathValue("id"), payd.PrefixPayment) {
		f.send(w, f.body)
	}
}

// page answers a list page, the same page whatever its cursor.
func (f *httpFloor) page(body *[]byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if f.authed(w, r) {
			f.send(w, *body)
		}
	}
}

// authed checks the Basic credentials as payd does, answering 401 when
// they do not match.
func (f *httpFloor) authed(w http.ResponseWriter, r *http.Request) bool {
	user, secret, ok := r.BasicAuth()
	if !ok || user != f.shopID || !payd.SecretMatches(secret, f.hash) {
		http.Error(w, `{"error":{"code":"unauthorized"}}`, http.StatusUnauthorized)
		return false
	}
	return true
}

func (f *httpFloor) send(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func (f *httpFloor) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f.srv.Shutdown(ctx)
}

// worker reads a payment from the floor, as a's getWorker reads it from
// payd, over a's connections.
func (f *httpFloor) worker(a *api) func(int) op {
	floor := &api{client: a.client, base: f.base, shopID: a.shopID, secret: a.secret}
	a.mu.Lock()
	ids := a.ids
	a.mu.Unlock()
	return func(int) op {
		return func(ctx context.Context, n int64) error {
			if len(ids) == 0 {
				return errors.New("no payment ids")
			}
			_, err := floor.do(ctx, http.MethodGet, "/v1/payments/"+ids[int((n*7919)%int64(len(ids)))], nil, nil, http.StatusOK)
			return err
		}
	}
}

// pageWorker reads a list floor's page at path, as a's listWorker and
// eventsWorker read pages of 100 from payd, over a's connections.
func (f *httpFloor) pageWorker(a *api, path string) func(int) op {
	floor := &api{client: a.client, base: f.base, shopID: a.shopID, secret: a.secret}
	return func(int) op {
		return func(ctx context.Context, _ int64) error {
			_, err := floor.do(ctx, http.MethodGet, path, nil, nil, http.StatusOK)
			return err
		}
	}
}

// ceiling is the additive ceiling of "authenticate, read one row,
// answer" from the two floors' rates: each operation costs the sum of the
// two halves' times, so the rate is 1/(1/http + 1/db). Without a
// database floor (SQLite: the read runs inside payd) it is the HTTP
// floor's rate.
func ceiling(httpRate, dbRate float64) float64 {
	if dbRate <= 0 {
		return httpRate
	}
	if httpRate <= 0 {
		return 0
	}
	return 1 / (1/httpRate + 1/dbRate)
}
