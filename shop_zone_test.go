package payd

import (
	"testing"
	"time"
)

// TestShopLocation checks the zone a shop's times are shown in: its
// setting, else its region's — Moscow (UTC+3) for ru, Almaty for kz, which
// tzdata puts at UTC+5 since 1 March 2024 (UTC+6 before).
func TestShopLocation(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		shop   Shop
		at     string
		offset int
	}{
		{Shop{Region: RegionRU}, "2026-11-29T12:00:00Z", 3 * 3600},
		{Shop{Region: RegionKZ}, "2026-11-29T12:00:00Z", 5 * 3600},
		{Shop{Region: RegionKZ}, "2024-01-15T12:00:00Z", 6 * 3600},
		{Shop{Region: RegionRU, Settings: ShopSettings{TimeZone: "Asia/Vladivostok"}}, "2026-11-29T12:00:00Z", 10 * 3600},
	} {
		if _, off := at(c.at).In(c.shop.Location()).Zone(); off != c.offset {
			t.Errorf("%s shop %q at %s: offset %d, want %d", c.shop.Region, c.shop.Settings.TimeZone, c.at, off, c.offset)
		}
	}
	for zone, ok := range map[string]bool{"Europe/Moscow": true, "Asia/Almaty": true, "UTC": true,
		"Moscow": false, "Local": false, "Europe/Nowhere": false, "../etc/passwd": false} {
		err := ShopSettings{TimeZone: zone}.Validate()
		if (err == nil) != ok {
			t.Errorf("time_zone %q: %v", zone, err)
		}
		if err != nil && (ErrorCodeOf(err) != CodeInvalidRequest || err.(*Error).Param != "time_zone") {
			t.Errorf("time_zone %q refused with %v, want invalid_request on time_zone", zone, err)
		}
	}
}
