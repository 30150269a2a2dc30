package dashboard

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// The next page's link carries the filter and a cursor bound to it: read
// back it continues after the last row, and with another filter it is
// refused, as the API's cursors are.
func TestListPagesKeepTheirFilter(t *testing.T) {
	t.Parallel()
	lp, print, keep, err := listQuery(url.Values{"status": {"pending"}, "other": {"x"}}, "status")
	if err != nil || lp.Limit != pageRows || lp.After != nil || keep.Encode() != "status=pending" {
		t.Fatalf("first page = %+v %v %q", lp, err, keep.Encode())
	}
	last := &payd.Cursor{CreatedAt: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), ID: "re_last"}
	next := nextPage(keep, last, print)
	if !strings.HasPrefix(next, "?") || !strings.Contains(next, "status=pending") {
		t.Fatalf("next page link = %q", next)
	}
	vals, _ := url.ParseQuery(strings.TrimPrefix(next, "?"))
	lp, _, _, err = listQuery(vals, "status")
	if err != nil || lp.After == nil || lp.After.ID != "re_last" || !lp.After.CreatedAt.Equal(last.CreatedAt) {
		t.Fatalf("page after = %+v %v", lp.After, err)
	}
	vals.Set("status", "succeeded")
	if _, _, _, err := listQuery(vals, "status"); payd.ErrorCodeOf(err) != payd.CodeInvalidRequest {
		t.Fatalf("a cursor with another filter = %v, want invalid_request", err)
	}
	if nextPage(keep, nil, print) != "" {
		t.Fatal("the last page links to a next one")
	}
}
