package api

import (
	"encoding/json"
	"net/http"

	"github.com/paydhq/payd/internal/httpapi"
)

// listBody is the contract's list answer; next_cursor is null at the end.
// writeRawList writes a list body whose items are encoded already, joining
// them as they are: a page of stored renderings costs a copy, not an
// encoding.
func writeRawList[T any](w http.ResponseWriter, items []T, raw func(T) []byte, next *string) {
	size := 40
	for _, it := range items {
		size += len(raw(it)) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"items":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, raw(it)...)
	}
	b = append(b, `],"next_cursor":`...)
	if next == nil {
		b = append(b, "null"...)
	} else {
		c, _ := json.Marshal(*next)
		b = append(b, c...)
	}
	httpapi.WriteRaw(w, http.StatusOK, append(b, '}'))
}

type listBody struct {
	Items      any     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}
