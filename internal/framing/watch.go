package framing

import (
	"bytes"
	"strconv"
	"strings"
)

// head is what the watcher keeps of one request head.
type head struct {
	method, target string
	// both: the head carried Content-Length and Transfer-Encoding.
	both bool
}

// maxLine bounds what the watcher keeps of one line; the server refuses
// longer heads itself (MaxHeaderBytes), and the names and values read here
// are short.
const maxLine = 8 << 10

type state int

const (
	stHead      state = iota // request line and header lines
	stBody                   // remaining bytes of a Content-Length body
	stChunkSize              // a chunk-size line
	stChunkData              // remaining bytes of a chunk
	stChunkEnd               // the CRLF after a chunk
	stTrailer                // trailer lines after the last chunk
	stLost                   // framing the server refuses too: stop
)

// watcher follows the framing of the requests in a byte stream, as an
// HTTP/1.1 server reads them, without holding more than a line.
type watcher struct {
	st     state
	line   []byte
	remain int64 // bytes left in a body or a chunk
	// cur is the head being read once its request line came (started).
	cur     head
	started bool
	hasCL   bool
	cl      int64
	te      string // the Transfer-Encoding values, joined
}

// feed reads p and returns the heads it completed.
func (w *watcher) feed(p []byte) []head {
	var done []head
	for len(p) > 0 && w.st != stLost {
		switch w.st {
		case stBody, stChunkData:
			n := min(int64(len(p)), w.remain)
			p, w.remain = p[n:], w.remain-n
			if w.remain == 0 {
				if w.st == stBody {
					w.st = stHead
				} else {
					w.st = stChunkEnd
				}
			}
			continue
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.keep(p)
			return done
		}
		w.keep(p[:i])
		p = p[i+1:]
		line := strings.TrimSuffix(string(w.line), "\r")
		w.line = w.line[:0]
		if h, ok := w.lineDone(line); ok {
			done = append(done, h)
		}
	}
	return done
}

func (w *watcher) keep(b []byte) {
	if room := maxLine - len(w.line); room > 0 {
		w.line = append(w.line, b[:min(len(b), room)]...)
	}
}

// lineDone moves on by one complete line; it reports a head when the line
// ended one.
func (w *watcher) lineDone(line string) (head, bool) {
	switch w.st {
	case stHead:
		return w.headLine(line)
	case stChunkSize:
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		switch {
		case err != nil || n < 0:
			w.st = stLost
		case n == 0:
			w.st = stTrailer
		default:
			w.st, w.remain = stChunkData, n
		}
	case stChunkEnd:
		if line != "" {
			w.st = stLost
		} else {
			w.st = stChunkSize
		}
	case stTrailer:
		if line == "" {
			w.st = stHead
		}
	}
	return head{}, false
}

func (w *watcher) headLine(line string) (head, bool) {
	if !w.started {
		if line == "" {
			return head{}, false // blank lines before a request line
		}
		method, rest, _ := strings.Cut(line, " ")
		target, _, _ := strings.Cut(rest, " ")
		w.cur, w.started, w.hasCL, w.cl, w.te = head{method: method, target: target}, true, false, 0, ""
		return head{}, false
	}
	if line != "" {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return head{}, false
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			w.hasCL = true
			w.cl, _ = strconv.ParseInt(value, 10, 64)
		case "transfer-encoding":
			if w.te != "" {
				w.te += ","
			}
			w.te += strings.ToLower(value)
		}
		return head{}, false
	}
	// The head ends: what follows is its body.
	h := w.cur
	h.both = w.hasCL && w.te != ""
	w.started = false
	switch {
	case w.te != "":
		codings := strings.Split(w.te, ",")
		if strings.TrimSpace(codings[len(codings)-1]) == "chunked" {
			w.st = stChunkSize
		} else {
			w.st = stLost // the server refuses other codings and closes
		}
	case w.hasCL && w.cl > 0:
		w.st, w.remain = stBody, w.cl
	case w.hasCL && w.cl < 0:
		w.st = stLost
	}
	return h, true
}
