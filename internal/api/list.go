package api

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/paydhq/payd/internal/httpapi"
)

// pages hold the buffers list pages are written from. A page of 100
// payments is about 100 KiB; one allocated for every page, with the
// copies behind it, kept the collector busy for a fifth of a list's CPU
// (docs/benchmarks-history.md, "A list page against its ceiling").
var pages = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledPage is the largest buffer kept for the next page: a page of
// the largest items is written from a buffer of its own and let go.
const maxPooledPage = 1 << 20

// writeRawList writes a list body whose items are encoded already,
// appending each with appendItem as it is: a page of stored renderings
// costs a copy, not an encoding. next_cursor is null at the end.
func writeRawList[T any](w http.ResponseWriter, items []T, appendItem func([]byte, T) []byte, next *string) {
	bp := pages.Get().(*[]byte)
	b := append((*bp)[:0], `{"items":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, it)
	}
	b = append(b, `],"next_cursor":`...)
	if next == nil {
		b = append(b, "null"...)
	} else {
		c, _ := json.Marshal(*next)
		b = append(b, c...)
	}
	b = append(b, '}')
	// The server has written or copied the body when WriteRaw returns.
	httpapi.WriteRaw(w, http.StatusOK, b)
	if cap(b) <= maxPooledPage {
		*bp = b
		pages.Put(bp)
	}
}

// listBody is the contract's list answer; next_cursor is null at the end.
type listBody struct {
	Items      any     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}
