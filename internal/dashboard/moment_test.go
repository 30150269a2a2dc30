package dashboard

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// TestMomentInTheShopsZone checks that a time shows in the shop's zone
// with its offset, in a <time> element that keeps the UTC moment in
// datetime and in the title shown on hover.
func TestMomentInTheShopsZone(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 5, 0, time.UTC)
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		l    webpage.Locale
		want string
	}{
		{webpage.For("ru").In((&payd.Shop{Region: payd.RegionRU}).Location()), "2026-11-29 15:00:05\u00a0UTC+3"},
		{webpage.For("kk").In((&payd.Shop{Region: payd.RegionKZ}).Location()), "2026-11-29 17:00:05\u00a0UTC+5"},
		{webpage.For("en").In(kolkata), "2026-11-29 17:30:05\u00a0UTC+5:30"},
		{webpage.For("en"), "2026-11-29 12:00:05\u00a0UTC"},
	} {
		want := `<time datetime="2026-11-29T12:00:05Z" title="2026-11-29 12:00:05 UTC">` + c.want + `</time>`
		if got := string(moment(c.l, at)); got != want {
			t.Errorf("moment in %s = %s, want %s", c.l.Zone(), got, want)
		}
	}
	if got := moment(webpage.For("ru"), time.Time{}); got != "—" {
		t.Errorf("no time reads %q", got)
	}
}
