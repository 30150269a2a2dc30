// Package framing refuses HTTP/1.1 requests whose framing two parsers
// could read two ways: a request carrying both Content-Length and
// Transfer-Encoding. RFC 9112 §6.3 says such a message "ought to be
// handled as an error" and that a server answering it MUST close the
// connection afterwards, because a proxy in front that framed the body by
// Content-Length would take the rest of it for the next request (request
// smuggling).
//
// Go's net/http reads such a request by its Transfer-Encoding, deletes the
// Content-Length header before any handler sees it, and keeps the
// connection open. So the check sits below it: Guard wraps the listener's
// connections with a reader that follows the framing of each request on
// the wire (request line, header names, then the body by Content-Length or
// by chunks) and notes when a head carried both fields; from then on the
// handler Guard installs answers the connection's requests with refuse
// and "Connection: close", never reading their bodies, so the first such
// answer closes it.
//
// The watch needs the plain bytes, so it applies to listeners without TLS
// (the deployment behind a TLS-terminating proxy, where the proxy's
// reading and payd's can differ). With payd's own TLS, HTTP/2 clients
// frame by the protocol and are unaffected.
package framing

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
)

// Guard installs the check on srv: it wraps srv.Handler and srv.ConnContext
// and returns ln wrapped, to be served by srv.Serve. refuse answers a
// request that carried both Content-Length and Transfer-Encoding; its
// answer goes out with "Connection: close" and the connection closes.
func Guard(srv *http.Server, ln net.Listener, refuse http.Handler) net.Listener {
	next, prevCtx := srv.Handler, srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prevCtx != nil {
			ctx = prevCtx(ctx, c)
		}
		if w, ok := c.(*conn); ok {
			ctx = context.WithValue(ctx, connKey{}, w)
		}
		return ctx
	}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := r.Context().Value(connKey{}).(*conn); ok && r.ProtoMajor == 1 && c.seen.Load() {
			w.Header().Set("Connection", "close")
			refuse.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
	return listener{ln}
}

type connKey struct{}

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

// conn watches the requests read from its connection. Once a head with
// both fields has been read, every request the connection still carries is
// refused: what follows such a head is framed one way by payd and another
// by a proxy that reads Content-Length, so none of it can be trusted, and
// the connection closes with the first refusal. A flag, not a queue of
// heads, so that what a connection costs stays fixed however many
// requests it pipelines.
type conn struct {
	net.Conn
	w    watcher // used by Read only: the server reads from one goroutine at a time
	seen atomic.Bool
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.seen.Load() {
		for _, h := range c.w.feed(p[:n]) {
			if h.both {
				c.seen.Store(true)
			}
		}
	}
	return n, err
}
