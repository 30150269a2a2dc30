package dispatch

// activity is what the sender tells of its work, for a test that waits
// until nothing is due before it asserts that nothing was sent: its looks
// at the queue (claims) and their numbers, the last look that found
// nothing, and its changes. Guarded by Dispatcher.mu.
type activity struct {
	looks     uint64 // looks begun
	looking   int    // looks under way
	quietLook uint64 // the number of the last look that found nothing due with nothing in hand
	changes   uint64 // looks that claimed something, and batches recorded
	// changed is closed, and replaced, when a look ends or a batch is
	// recorded.
	changed chan struct{}
}

// lookBegins numbers a new look.
func (a *activity) lookBegins() uint64 {
	a.looks++
	a.looking++
	return a.looks
}

// lookEnds ends look n, which claimed claimed deliveries; quiet when it
// claimed nothing with nothing in hand.
func (a *activity) lookEnds(n uint64, claimed int, quiet bool) {
	a.looking--
	if quiet {
		a.quietLook = max(a.quietLook, n)
	}
	if claimed > 0 {
		a.changes++
	}
	a.notify()
}

func (a *activity) recorded() {
	a.changes++
	a.notify()
}

func (a *activity) notify() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// Activity is a moment of the sender's work (Dispatcher.Activity).
type Activity struct {
	// Looks counts the sender's looks at the queue begun so far; Look
	// asks for one more.
	Looks uint64
	// QuietLook is the number of the last look that found no delivery
	// due while the sender had none in hand (zero: none yet). Once it
	// reaches a look begun after some moment, every delivery due at that
	// moment has been sent and recorded.
	QuietLook uint64
	// InHand counts the deliveries claimed and not yet recorded, and the
	// looks under way.
	InHand int
	// Changes counts the looks that claimed deliveries and the batches
	// of outcomes recorded: a test compares two readings to
	// tell whether the sender did anything in between.
	Changes uint64
	// Changed is closed at the sender's next change of any of the above.
	Changed <-chan struct{}
}

// Activity tells what the sender is doing. Tests use it, with Look, to
// wait until nothing is due rather than sleep.
func (d *Dispatcher) Activity() Activity {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.activity
	return Activity{Looks: a.looks, QuietLook: a.quietLook, InHand: len(d.held) + a.looking, Changes: a.changes, Changed: a.changed}
}

// Look asks the sender to look at the queue, and returns the number
// that look, or a later one, will have (compare Activity.QuietLook).
func (d *Dispatcher) Look() uint64 {
	d.mu.Lock()
	next := d.activity.looks + 1
	d.mu.Unlock()
	d.Kick()
	return next
}
