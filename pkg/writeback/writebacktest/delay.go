package writebacktest

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
)

// NewDelayingWatch returns a watch that delivers each event of inner after a delay drawn from
// delay when the event arrives, measured on clk (nil: the real clock). Order is kept: an event
// never overtakes the one before it, so a short delay after a long one waits for it.
func NewDelayingWatch(inner watch.Interface, delay func() time.Duration, clk clock.Clock) watch.Interface {
	if clk == nil {
		clk = clock.RealClock{}
	}
	w := &delayingWatch{
		inner:   inner,
		delay:   delay,
		clock:   clk,
		out:     make(chan watch.Event),
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
	}
	go w.receive()
	go w.forward()
	return w
}

type timedEvent struct {
	event watch.Event
	due   time.Time
}

type delayingWatch struct {
	inner watch.Interface
	delay func() time.Duration
	clock clock.Clock
	out   chan watch.Event
	wake  chan struct{}

	mu          sync.Mutex
	queue       []timedEvent
	lastDue     time.Time
	innerClosed bool

	stopOnce sync.Once
	stopped  chan struct{}
}

func (w *delayingWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *delayingWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

func (w *delayingWatch) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *delayingWatch) receive() {
	for ev := range w.inner.ResultChan() {
		due := w.clock.Now().Add(w.delay())
		w.mu.Lock()
		if due.Before(w.lastDue) {
			due = w.lastDue
		}
		w.lastDue = due
		w.queue = append(w.queue, timedEvent{event: ev, due: due})
		w.mu.Unlock()
		w.poke()
	}
	w.mu.Lock()
	w.innerClosed = true
	w.mu.Unlock()
	w.poke()
}

func (w *delayingWatch) forward() {
	defer close(w.out)
	for {
		w.mu.Lock()
		var next timedEvent
		ready := len(w.queue) > 0
		if ready {
			next = w.queue[0]
			w.queue = w.queue[1:]
		}
		done := !ready && w.innerClosed
		w.mu.Unlock()
		if done {
			return
		}
		if !ready {
			select {
			case <-w.wake:
				continue
			case <-w.stopped:
				return
			}
		}
		if wait := next.due.Sub(w.clock.Now()); wait > 0 {
			select {
			case <-w.clock.After(wait):
			case <-w.stopped:
				return
			}
		}
		select {
		case w.out <- next.event:
		case <-w.stopped:
			return
		}
	}
}
