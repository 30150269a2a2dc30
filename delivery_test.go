package payd

import (
	"testing"
	"time"
)

// TestDeliveryLateness: a first attempt is late since the delivery was
// queued, a retry since it fell due, and a delivery claimed early is not
// late at all.
func TestDeliveryLateness(t *testing.T) {
	t.Parallel()
	queued := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	retry := queued.Add(time.Minute)
	for _, c := range []struct {
		name string
		d    WebhookDelivery
		now  time.Time
		want time.Duration
	}{
		{"first attempt", WebhookDelivery{CreatedAt: queued}, queued.Add(3 * time.Second), 3 * time.Second},
		{"retry", WebhookDelivery{CreatedAt: queued, NextAttemptAt: &retry}, retry.Add(2 * time.Second), 2 * time.Second},
		{"early", WebhookDelivery{CreatedAt: queued, NextAttemptAt: &retry}, retry.Add(-time.Second), 0},
	} {
		if got := c.d.Lateness(c.now); got != c.want {
			t.Errorf("%s: Lateness = %v, want %v", c.name, got, c.want)
		}
	}
}
