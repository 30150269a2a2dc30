// Package dispatch sends the service's queued webhook deliveries: it claims
// due ones in batches, posts them concurrently under a cap per endpoint
// that grows for quick endpoints and stays small for slow or silent ones,
// and records the outcomes in batches from one writer. What a delivery is,
// how it is signed and sent and what its outcome changes are the
// service's (Source); this package holds only the concurrency. serve
// wires it: New, then Run until shutdown, with Kick given to the service
// so that a commit that queues deliveries wakes it at once.
package dispatch

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
)

// Source is what the dispatcher sends for: the service.
type Source interface {
	// ClaimDeliveries leases due deliveries as p describes.
	ClaimDeliveries(ctx context.Context, p payd.DeliveryClaim) ([]*payd.DeliveryWork, error)
	// AttemptDelivery makes one attempt, outside any transaction.
	AttemptDelivery(ctx context.Context, w *payd.DeliveryWork) *payd.DeliveryOutcome
	// RecordDeliveries writes a batch of outcomes in one transaction.
	RecordDeliveries(ctx context.Context, outs []*payd.DeliveryOutcome) error
}

// Options size the webhook sender. Zero values take the defaults.
type Options struct {
	// MaxInFlight is how many deliveries are being sent, or waiting in
	// memory for their endpoint, at once (default 256). A delivery waiting
	// for a slow receiver costs a goroutine and a connection, not CPU.
	MaxInFlight int
	// PerEndpoint is how many deliveries one endpoint receives at once
	// while it answers quickly (default 32).
	PerEndpoint int
	// PerSlowEndpoint is the same limit for an endpoint not yet heard from
	// or whose last answer took a second or more, or failed (default 4):
	// a slow or silent endpoint holds only this many senders, so it cannot
	// delay the others. Each quick answer doubles an endpoint's limit, up
	// to PerEndpoint.
	PerSlowEndpoint int
	// PollInterval is how often the queue is looked at when nothing woke
	// the sender: retries coming due, deliveries queued by another
	// instance (default 100 ms). A commit that queues deliveries in this
	// process wakes it at once.
	PollInterval time.Duration
	// Lease is how long a claimed delivery stays out of other claims, on
	// the service clock (default 5 minutes): a delivery whose sender died
	// is sent again when it runs out.
	Lease time.Duration
	// OnOutcome, when set, is told each recorded outcome: "succeeded",
	// "failed" (an attempt that did not get a 2xx) or "skipped" (the
	// endpoint was no longer active). Metrics use it.
	OnOutcome func(outcome string)
	// OnClaimed, when set, is told each delivery as it is claimed, before
	// it is sent. Metrics use it for the deliveries' lateness.
	OnClaimed func(w *payd.DeliveryWork)
	// TracerProvider, when set, gives every attempt a span (trace.go).
	// Nil: no spans.
	TracerProvider trace.TracerProvider
}

func (o Options) withDefaults() Options {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 256
	}
	if o.PerEndpoint <= 0 {
		o.PerEndpoint = 32
	}
	if o.PerSlowEndpoint <= 0 {
		o.PerSlowEndpoint = min(4, o.PerEndpoint)
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 100 * time.Millisecond
	}
	if o.Lease <= 0 {
		o.Lease = 5 * time.Minute
	}
	return o
}

// claimBatch bounds one claim, and recordBatch one transaction of outcomes.
const (
	claimBatch  = 256
	recordBatch = 512
)

// Dispatcher sends queued deliveries: it claims due ones in batches, posts
// them concurrently under a cap per endpoint, and records the outcomes in
// batches from one writer.
type Dispatcher struct {
	src     Source
	log     *slog.Logger
	opts    Options
	wake    chan struct{}
	results chan *payd.DeliveryOutcome

	mu        sync.Mutex
	lines     map[string]*endpointLine
	limits    map[string]endpointLimit // quick endpoints' limits above PerSlowEndpoint
	held      map[string]bool          // claimed here and not yet recorded
	busy      int                      // being sent or waiting for their endpoint
	activity  activity
	sends     sync.WaitGroup
	sendCtx   context.Context
	recording sync.WaitGroup
	tracer    trace.Tracer // nil without Options.TracerProvider
}

// endpointLimit is a quick endpoint's limit and when it last answered
// (real time: it is about this process's connections, not the service
// clock).
type endpointLimit struct {
	n    int
	seen time.Time
}

// Quick endpoints not heard from for fastMemory start again from
// PerSlowEndpoint; at most maxFast are named in a claim.
const (
	fastMemory = time.Minute
	maxFast    = 500
)

// endpointLine is one endpoint's deliveries in this process.
type endpointLine struct {
	sending int
	waiting []*payd.DeliveryWork
}

// New returns a dispatcher sized by opts; log gets its warnings (nil:
// none).
func New(opts Options, log *slog.Logger) *Dispatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{log: log, opts: opts.withDefaults(), wake: make(chan struct{}, 1),
		results: make(chan *payd.DeliveryOutcome, recordBatch), lines: map[string]*endpointLine{}, limits: map[string]endpointLimit{}, held: map[string]bool{},
		activity: activity{changed: make(chan struct{})}}
	if opts.TracerProvider != nil {
		d.tracer = opts.TracerProvider.Tracer("github.com/paydhq/payd/internal/dispatch")
	}
	return d
}

// Kick wakes the sender; a kick while it works makes it look again. It
// never blocks, and is safe before Run.
func (d *Dispatcher) Kick() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run sends src's deliveries until ctx ends, then lets the attempts under
// way finish and records them. It is called once.
func (d *Dispatcher) Run(ctx context.Context, src Source) {
	d.src = src
	d.sendCtx = context.WithoutCancel(ctx)
	d.recording.Add(1)
	go d.record()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			d.sends.Wait()
			close(d.results)
			d.recording.Wait()
			return
		case <-d.wake:
		case <-timer.C:
		}
		for d.claim(ctx) {
		}
		timer.Reset(d.opts.PollInterval)
	}
}

// claim takes one batch of due deliveries and starts them; it reports
// whether a full batch came, so that there may be more.
func (d *Dispatcher) claim(ctx context.Context) bool {
	d.mu.Lock()
	room := min(d.opts.MaxInFlight-d.busy, claimBatch)
	var exclude, fast, slow []string
	for id, l := range d.lines {
		if l.sending+len(l.waiting) >= d.limit(id) {
			exclude = append(exclude, id)
		} else if _, quick := d.limits[id]; !quick {
			// A slow endpoint with room for one more: its backlog is
			// looked at apart, or it would hide everyone's new deliveries.
			slow = append(slow, id)
		}
	}
	now := time.Now()
	for id, lim := range d.limits {
		if l := d.lines[id]; l == nil && now.Sub(lim.seen) > fastMemory {
			delete(d.limits, id)
		} else if len(fast) < maxFast && (l == nil || l.sending+len(l.waiting) < lim.n) {
			fast = append(fast, id)
		}
	}
	if room <= 0 {
		d.mu.Unlock()
		return false // a finished send wakes the loop
	}
	look, empty := d.activity.lookBegins(), len(d.held) == 0
	d.mu.Unlock()
	works, err := d.src.ClaimDeliveries(ctx, payd.DeliveryClaim{
		Lease: d.opts.Lease, Limit: room, Exclude: exclude, Slow: slow,
		// A quick endpoint gets up to twice PerEndpoint, beyond what it
		// has here already: the rest waits here and keeps it busy until
		// the next claim.
		PerEndpoint: d.opts.PerSlowEndpoint, Fast: fast, PerFastEndpoint: 2 * d.opts.PerEndpoint,
	})
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("claim webhook deliveries", "err", err.Error())
		}
		d.mu.Lock()
		d.activity.lookEnds(look, 0, false)
		d.mu.Unlock()
		return false
	}
	for _, w := range works {
		if d.opts.OnClaimed != nil {
			d.opts.OnClaimed(w)
		}
		d.start(w)
	}
	d.mu.Lock()
	// A look with nothing in hand that claims nothing saw nothing due:
	// no endpoint was left out for being busy here.
	d.activity.lookEnds(look, len(works), empty && len(works) == 0)
	d.mu.Unlock()
	return len(works) == room
}

// start hands a claimed delivery to its endpoint's line.
func (d *Dispatcher) start(w *payd.DeliveryWork) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := w.Delivery.ID
	if d.held[id] {
		return // its lease ran out while it waited here: still ours
	}
	d.held[id] = true
	d.busy++
	l := d.lines[w.Delivery.EndpointID]
	if l == nil {
		l = &endpointLine{}
		d.lines[w.Delivery.EndpointID] = l
	}
	if l.sending >= d.limit(w.Delivery.EndpointID) {
		l.waiting = append(l.waiting, w)
		return
	}
	l.sending++
	d.sends.Add(1)
	go d.send(w)
}

// limit is how many deliveries an endpoint may have here at once. Called
// with d.mu held.
func (d *Dispatcher) limit(endpoint string) int {
	if lim, ok := d.limits[endpoint]; ok {
		return lim.n
	}
	return d.opts.PerSlowEndpoint
}

// send makes one attempt, then the endpoint's next waiting delivery, if
// any, on the same goroutine.
func (d *Dispatcher) send(w *payd.DeliveryWork) {
	defer d.sends.Done()
	endpoint := w.Delivery.EndpointID
	for w != nil {
		ctx, span := d.attemptSpan(d.sendCtx, w)
		out := d.src.AttemptDelivery(ctx, w)
		endAttempt(span, out)
		d.results <- out
		d.mu.Lock()
		wasFull := d.busy >= d.opts.MaxInFlight
		d.busy--
		if !out.Quick() {
			delete(d.limits, endpoint)
		} else {
			d.limits[endpoint] = endpointLimit{n: min(2*d.limit(endpoint), d.opts.PerEndpoint), seen: time.Now()}
		}
		l := d.lines[endpoint]
		w = nil
		if len(l.waiting) > 0 && l.sending <= d.limit(endpoint) {
			w, l.waiting = l.waiting[0], l.waiting[1:]
		} else if l.sending--; l.sending == 0 && len(l.waiting) == 0 {
			delete(d.lines, endpoint)
		}
		// Claims are worth their statement only when there is room for
		// more: the endpoint's buffer ran low, or the sender was full.
		hungry := wasFull || l.sending+len(l.waiting) < d.limit(endpoint)
		d.mu.Unlock()
		if hungry {
			d.Kick()
		}
	}
}

// record writes outcomes as they come, as many as are ready in one
// transaction, and releases them for later claims once written. A batch
// that cannot be written is retried; if it still fails, its deliveries are
// sent again when their lease runs out (receivers deduplicate on the event
// id).
func (d *Dispatcher) record() {
	defer d.recording.Done()
	ctx := d.sendCtx
	for first := range d.results {
		batch := []*payd.DeliveryOutcome{first}
	more:
		for len(batch) < recordBatch {
			select {
			case o, ok := <-d.results:
				if !ok {
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		var err error
		for try := 0; try < 3; try++ {
			if err = d.src.RecordDeliveries(ctx, batch); err == nil {
				break
			}
			time.Sleep(time.Duration(try+1) * 50 * time.Millisecond)
		}
		if err != nil {
			d.log.Error("record webhook attempts", "err", err.Error(), "deliveries", len(batch))
		}
		d.mu.Lock()
		for _, o := range batch {
			delete(d.held, o.Work().Delivery.ID)
		}
		d.activity.recorded()
		d.mu.Unlock()
		if err == nil && d.opts.OnOutcome != nil {
			for _, o := range batch {
				d.opts.OnOutcome(o.Name())
			}
		}
	}
}
