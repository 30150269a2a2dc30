//go:build linux

package main

import (
	"bytes"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd/webhook"
)

// proxy is the load balancer: round robin over the instances. A request
// that could not be delivered at all (connection refused: the instance is
// down) goes to the next one, as a balancer's health check would arrange;
// one cut off after it was sent answers 502 and the client retries it.
type proxy struct {
	backends []string
	next     atomic.Uint64
	tr       *http.Transport
}

func newProxy(backends []string) *proxy {
	return &proxy{backends: backends, tr: &http.Transport{
		MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second,
		DialContext: (&net.Dialer{Timeout: time.Second}).DialContext,
	}}
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	for range p.backends {
		b := p.backends[p.next.Add(1)%uint64(len(p.backends))]
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, "http://"+b+r.URL.RequestURI(), bytes.NewReader(body))
		out.Header = r.Header.Clone()
		resp, err := p.tr.RoundTrip(out)
		if err != nil {
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" {
				continue
			}
			http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
			return
		}
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
		resp.Body.Close()
		return
	}
	http.Error(w, "no instance accepts connections", http.StatusBadGateway)
}

// receiver is the merchant's webhook endpoint: it counts every delivery by
// event id and always acknowledges.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	counts map[string]int
	// first is when each event first arrived.
	first map[string]time.Time
}

func newReceiver() *receiver {
	rc := &receiver{counts: map[string]int{}, first: map[string]time.Time{}}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if id := r.Header.Get(webhook.EventIDHeader); id != "" {
			rc.mu.Lock()
			if rc.counts[id]++; rc.counts[id] == 1 {
				rc.first[id] = time.Now()
			}
			rc.mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	}))
	rc.srv.StartTLS()
	return rc
}

// writeCA writes the receiver's certificate for --webhook-ca-file.
func (rc *receiver) writeCA(path string) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o644)
}

// firstArrivals copies when each event first arrived.
func (rc *receiver) firstArrivals() map[string]time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make(map[string]time.Time, len(rc.first))
	for k, v := range rc.first {
		out[k] = v
	}
	return out
}

func (rc *receiver) snapshot() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make(map[string]int, len(rc.counts))
	for k, v := range rc.counts {
		out[k] = v
	}
	return out
}
