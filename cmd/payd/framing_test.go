package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestServeRefusesBothLengths: payd serve answers a request carrying both
// Content-Length and Transfer-Encoding with the contract's 400 and closes
// the connection, so the pipelined request behind it is never served
// (RFC 9112, section 6.3).
func TestServeRefusesBothLengths(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	r := startServe(t, "--addr", addr, "--data-dir", t.TempDir())
	waitHealthy(t, http.DefaultClient, "http://"+addr, r)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /v1/payments HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"+
		"GET /v1/shop HTTP/1.1\r\nHost: a\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Code, RequestID string }
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != 400 || e.Code != "invalid_request" || !resp.Close || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("%d %+v close=%v; want 400 invalid_request with a request id, closing", resp.StatusCode, e, resp.Close)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the refusal the connection stayed open (%v): the pipelined request would be served", err)
	}
}
