package framing

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// serve runs a guarded server on loopback; it returns its address and the
// requests its handler saw ("METHOD target body").
func serve(t *testing.T) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.RequestURI+" "+string(body))
		mu.Unlock()
		io.WriteString(w, "ok")
	}), ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "refused", http.StatusBadRequest)
	})
	go srv.Serve(Guard(srv, ln, refuse))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// exchange writes raw on one connection and reads every response until
// the server closes it or stops answering.
func exchange(t *testing.T, addr, raw string) (statuses []int, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return statuses, err == io.EOF || strings.Contains(err.Error(), "reset")
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		if resp.Close {
			_, err := br.ReadByte()
			return statuses, err == io.EOF
		}
	}
}

// TestBothLengthsRefusedAndClosed: a request with both Content-Length and
// Transfer-Encoding is answered 400 and its connection closed, so the
// bytes after it are never read as a request of their own (RFC 9112
// §6.3); neither reaches the handler.
func TestBothLengthsRefusedAndClosed(t *testing.T) {
	t.Parallel()
	for name, raw := range map[string]string{
		"chunked beside a length": "POST /pay HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
		"length after chunked, other case": "POST /pay HTTP/1.1\r\nHost: a\r\ntransfer-encoding: chunked\r\ncontent-LENGTH: 40\r\n\r\n" +
			"3\r\nabc\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
		"after a good request": "GET /first HTTP/1.1\r\nHost: a\r\n\r\n" +
			"POST /pay HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
			"GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr, seen := serve(t)
			statuses, closed := exchange(t, addr, raw)
			if len(statuses) == 0 || statuses[len(statuses)-1] != http.StatusBadRequest || !closed {
				t.Fatalf("answers %v, closed %v; want the last 400 and the connection closed", statuses, closed)
			}
			for _, s := range seen() {
				if strings.HasPrefix(s, "POST /pay") || strings.HasPrefix(s, "GET /smuggled") {
					t.Fatalf("the handler saw %q", s)
				}
			}
		})
	}
}

// TestPipelinedRequestsFollowed: bodies by length and by chunks, with text
// inside that looks like heads, are followed to the next request, so no
// request is refused or missed.
func TestPipelinedRequestsFollowed(t *testing.T) {
	t.Parallel()
	addr, seen := serve(t)
	lengthBody := "x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
	chunk := "Content-Length: 3\r\n\r\nGET / HTTP"
	raw := "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: " + strconv.Itoa(len(lengthBody)) + "\r\n\r\n" + lengthBody +
		"POST /b?q=1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(len(chunk)), 16) + ";ext=1\r\n" + chunk + "\r\n0\r\nTrailer-X: y\r\n\r\n" +
		"OPTIONS * HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n" +
		"GET /c HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
	// Fed whole and a byte at a time, the watcher finds the same heads.
	for _, step := range []int{len(raw), 1} {
		var w watcher
		var heads []head
		for i := 0; i < len(raw); i += step {
			heads = append(heads, w.feed([]byte(raw[i:min(i+step, len(raw))]))...)
		}
		want := []head{{"POST", "/a", false}, {"POST", "/b?q=1", false}, {"OPTIONS", "*", false}, {"GET", "/c", false}}
		if len(heads) != len(want) {
			t.Fatalf("step %d: heads %v, want %v", step, heads, want)
		}
		for i := range want {
			if heads[i] != want[i] {
				t.Fatalf("step %d: heads %v, want %v", step, heads, want)
			}
		}
	}
	statuses, _ := exchange(t, addr, raw)
	if len(statuses) != 4 {
		t.Fatalf("answers %v, want 4", statuses)
	}
	for _, s := range statuses {
		if s != http.StatusOK {
			t.Fatalf("answers %v, want all 200", statuses)
		}
	}
	got := seen()
	want := []string{"POST /a " + lengthBody, "POST /b?q=1 " + chunk, "GET /c "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("handler saw %q, want %q", got, want)
	}
}
