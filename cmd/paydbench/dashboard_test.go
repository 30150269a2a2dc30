package main

import "testing"

// TestNextPage: the "older" link's href is found in a page, past other
// links, and none in a page without it.
func TestNextPage(t *testing.T) {
	for _, c := range []struct{ page, want string }{
		{`<nav><a href="?before=a&amp;status=succeeded" rel="prev">Newer</a> <a href="?after=pay_1&amp;status=succeeded" rel="next">Older</a></nav>`, `?after=pay_1&amp;status=succeeded`},
		{`<a href="/dashboard/">Home</a><a href="?after=x" rel="next">`, `?after=x`},
		{`<a href="?before=a" rel="prev">Newer</a>`, ""},
		{`" rel="next">`, ""},
		{``, ""},
	} {
		if got := string(nextPage([]byte(c.page))); got != c.want {
			t.Errorf("nextPage(%q) = %q, want %q", c.page, got, c.want)
		}
	}
}
