package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// cursorWire is the opaque cursor: the position and a fingerprint of the
// filters it was issued for, so a cursor used with other filters is refused
// instead of silently paging a different list.
type cursorWire struct {
	T int64  `json:"t"`
	I string `json:"i"`
	F string `json:"f"`
}

// filterPrint fingerprints the filter values of a list request.
func filterPrint(q url.Values, filters []string) string {
	sorted := append([]string(nil), filters...)
	sort.Strings(sorted)
	h := sha256.New()
	for _, f := range sorted {
		h.Write([]byte(f + "=" + strings.Join(q[f], "\x00") + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func encodeCursor(c *payd.Cursor, print string) *string {
	if c == nil {
		return nil
	}
	b, _ := json.Marshal(cursorWire{T: c.CreatedAt.UnixMicro(), I: c.ID, F: print})
	s := base64.RawURLEncoding.EncodeToString(b)
	return &s
}

// parseList reads limit and cursor; filters names the query parameters that
// filter this list.
func parseList(q url.Values, filters ...string) (payd.ListParams, string, error) {
	lp := payd.ListParams{Limit: payd.DefaultPageSize}
	print := filterPrint(q, filters)
	if v := q.Get("limit"); v != "" || q.Has("limit") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > payd.MaxPageSize {
			return lp, "", invalidf("limit", "limit must be an integer 1..%d", payd.MaxPageSize)
		}
		lp.Limit = n
	}
	if v := q.Get("cursor"); v != "" || q.Has("cursor") {
		raw, err := base64.RawURLEncoding.DecodeString(v)
		var c cursorWire
		if err != nil || json.Unmarshal(raw, &c) != nil || c.I == "" {
			return lp, "", invalidf("cursor", "cursor is not one this service issued")
		}
		if c.F != print {
			return lp, "", invalidf("cursor", "the cursor belongs to a list with other filters; repeat the same filters with each cursor")
		}
		lp.After = &payd.Cursor{CreatedAt: time.UnixMicro(c.T).UTC(), ID: c.I}
	}
	return lp, print, nil
}

// parseTimeRange reads created_at_gte and created_at_lt.
func parseTimeRange(q url.Values) (payd.TimeRange, error) {
	var r payd.TimeRange
	for _, f := range []struct {
		name string
		dst  **time.Time
	}{{"created_at_gte", &r.GTE}, {"created_at_lt", &r.LT}} {
		v := q.Get(f.name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return r, invalidf(f.name, "%s must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z", f.name)
		}
		t = t.UTC()
		*f.dst = &t
	}
	return r, nil
}

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
	writeRaw(w, http.StatusOK, append(b, '}'))
}

type listBody struct {
	Items      any     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}
