package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
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

// EncodeCursor returns the opaque next_cursor for c (nil at the end);
// print is the fingerprint ParseList returned for the list's filters.
func EncodeCursor(c *payd.Cursor, print string) *string {
	if c == nil {
		return nil
	}
	b, _ := json.Marshal(cursorWire{T: c.CreatedAt.UnixMicro(), I: c.ID, F: print})
	s := base64.RawURLEncoding.EncodeToString(b)
	return &s
}

// ParseList reads limit and cursor; filters names the query parameters
// that filter this list. The fingerprint of their values goes back into
// EncodeCursor, so that a cursor is refused with other filters.
func ParseList(q url.Values, filters ...string) (payd.ListParams, string, error) {
	lp := payd.ListParams{Limit: payd.DefaultPageSize}
	print := filterPrint(q, filters)
	if v := q.Get("limit"); v != "" || q.Has("limit") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > payd.MaxPageSize {
			return lp, "", payd.Invalid("limit", "limit must be an integer 1..%d", payd.MaxPageSize)
		}
		lp.Limit = n
	}
	if v := q.Get("cursor"); v != "" || q.Has("cursor") {
		raw, err := base64.RawURLEncoding.DecodeString(v)
		var c cursorWire
		if err != nil || json.Unmarshal(raw, &c) != nil || c.I == "" {
			return lp, "", payd.Invalid("cursor", "cursor is not one this service issued")
		}
		if c.F != print {
			return lp, "", payd.Invalid("cursor", "the cursor belongs to a list with other filters; repeat the same filters with each cursor")
		}
		lp.After = &payd.Cursor{CreatedAt: time.UnixMicro(c.T).UTC(), ID: c.I}
	}
	return lp, print, nil
}

// ParseTimeRange reads the created_at_gte and created_at_lt filters.
func ParseTimeRange(q url.Values) (payd.TimeRange, error) {
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
			return r, payd.Invalid(f.name, "%s must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z", f.name)
		}
		t = t.UTC()
		*f.dst = &t
	}
	return r, nil
}
