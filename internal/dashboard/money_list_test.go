package dashboard

import (
	"fmt"
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
	next := pagesOf(url.Values{}, keep, last, print).Older
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
	if p := pagesOf(url.Values{}, keep, nil, print); p != (pager{}) {
		t.Fatalf("the only page links elsewhere: %+v", p)
	}
}

// Paging older and back: each page links to the first page, to the page
// it came from and to the next, so a reader walks back as far as forward;
// the first page has no newer one, the last no older one.
func TestListPagesGoBothWays(t *testing.T) {
	t.Parallel()
	_, print, keep, err := listQuery(url.Values{"status": {"pending"}}, "status")
	if err != nil {
		t.Fatal(err)
	}
	at := func(i int) *payd.Cursor {
		return &payd.Cursor{CreatedAt: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Hour), ID: fmt.Sprint("re_", i)}
	}
	// Walk five pages forward, keeping each page's address.
	addr := []url.Values{{"status": {"pending"}}}
	for i := 1; i < 5; i++ {
		p := pagesOf(addr[i-1], keep, at(i), print)
		if p.Older == "" {
			t.Fatalf("page %d has no older link", i)
		}
		vals, _ := url.ParseQuery(strings.TrimPrefix(p.Older, "?"))
		addr = append(addr, vals)
	}
	for i, vals := range addr {
		lp, _, _, err := listQuery(vals, "status")
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if i == 0 && lp.After != nil || i > 0 && (lp.After == nil || lp.After.ID != at(i).ID) {
			t.Fatalf("page %d reads after %+v", i, lp.After)
		}
		var next *payd.Cursor
		if i < len(addr)-1 {
			next = at(i + 1)
		}
		p := pagesOf(vals, keep, next, print)
		if i == 0 {
			if p.First != "" || p.Newer != "" {
				t.Fatalf("the first page links to a newer one: %+v", p)
			}
			continue
		}
		if p.First != "?status=pending" {
			t.Fatalf("page %d: first page = %q", i, p.First)
		}
		newer, _ := url.ParseQuery(strings.TrimPrefix(p.Newer, "?"))
		if newer.Encode() != addr[i-1].Encode() {
			t.Fatalf("page %d: newer page = %q, want the address of page %d %q", i, p.Newer, i-1, addr[i-1].Encode())
		}
		if i == len(addr)-1 && p.Older != "" {
			t.Fatalf("the last page links to an older one: %q", p.Older)
		}
	}
}

// The trail of cursors an address carries is bounded: deep in a list
// the address keeps the latest maxBack pages.
func TestListPagesTrailIsBounded(t *testing.T) {
	t.Parallel()
	_, print, keep, _ := listQuery(url.Values{}, "status")
	back := strings.TrimSuffix(strings.Repeat("c.", maxBack+5), ".")
	p := pagesOf(url.Values{"cursor": {"cur"}, "back": {back}}, keep, &payd.Cursor{CreatedAt: time.Now(), ID: "x"}, print)
	vals, _ := url.ParseQuery(strings.TrimPrefix(p.Older, "?"))
	if n := len(strings.Split(vals.Get("back"), ".")); n != maxBack {
		t.Fatalf("the older page's address carries %d cursors, want %d", n, maxBack)
	}
}
