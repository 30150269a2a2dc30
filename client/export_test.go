package client

import (
	"context"
	"time"
)

// SetSleep replaces the wait between attempts, so that a test can run the
// service's clock instead of waiting on the wall clock.
func SetSleep(c *Client, sleep func(ctx context.Context, d time.Duration) error) {
	c.sleep = sleep
}

// ConstructEventAt is ConstructEvent at a given now.
var ConstructEventAt = constructEventAt
