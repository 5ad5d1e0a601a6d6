package writebacktest

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// Holder holds back the events of the watches it wraps until the test releases them, so an
// informer lags behind the writes deterministically. Events are released in arrival order,
// oldest watch first. The zero value is not usable; call NewHolder.
type Holder struct {
	mu      sync.Mutex
	watches []*heldWatch
	// changed is closed and replaced whenever the number of held events changes.
	changed chan struct{}
}

// NewHolder returns a Holder with no watches.
func NewHolder() *Holder {
	return &Holder{changed: make(chan struct{})}
}

// Wrap returns a watch whose events wait in the holder until released.
func (h *Holder) Wrap(inner watch.Interface) watch.Interface {
	w := &heldWatch{
		holder:  h,
		inner:   inner,
		out:     make(chan watch.Event),
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
	}
	h.mu.Lock()
	h.watches = append(h.watches, w)
	h.mu.Unlock()
	go w.receive()
	go w.forward()
	return w
}

// Pending is the number of events received from the server and not yet released.
func (h *Holder) Pending() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pendingLocked()
}

func (h *Holder) pendingLocked() int {
	n := 0
	for _, w := range h.watches {
		if !w.isStopped() {
			n += len(w.held)
		}
	}
	return n
}

// AwaitPending blocks until at least n events are held, or ctx ends. A write made through a
// fake clientset reaches the watch asynchronously; this is how a test knows it is held.
func (h *Holder) AwaitPending(ctx context.Context, n int) error {
	for {
		h.mu.Lock()
		pending, changed := h.pendingLocked(), h.changed
		h.mu.Unlock()
		if pending >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Release lets up to n held events through, oldest first, and returns how many it released.
// The consumer receives them asynchronously, in order.
func (h *Holder) Release(n int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	released := 0
	for _, w := range h.watches {
		if w.isStopped() {
			continue
		}
		take := min(n-released, len(w.held)-w.allowed)
		if take <= 0 {
			continue
		}
		w.allowed += take
		released += take
		w.poke()
	}
	return released
}

// ReleaseAll lets every event held now through and returns how many that was.
func (h *Holder) ReleaseAll() int {
	return h.Release(int(^uint(0) >> 1))
}

func (h *Holder) notifyLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// heldWatch is one wrapped watch. Its fields are guarded by holder.mu.
type heldWatch struct {
	holder *Holder
	inner  watch.Interface
	out    chan watch.Event
	wake   chan struct{}

	held        []watch.Event
	allowed     int // how many of held, from the front, may be sent
	innerClosed bool

	stopOnce sync.Once
	stopped  chan struct{}
}

func (w *heldWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *heldWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
		w.holder.mu.Lock()
		w.holder.notifyLocked()
		w.holder.mu.Unlock()
	})
}

func (w *heldWatch) isStopped() bool {
	select {
	case <-w.stopped:
		return true
	default:
		return false
	}
}

func (w *heldWatch) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// receive drains the inner watch at once (a fake watch panics when its buffer fills).
func (w *heldWatch) receive() {
	for ev := range w.inner.ResultChan() {
		w.holder.mu.Lock()
		w.held = append(w.held, ev)
		w.holder.notifyLocked()
		w.holder.mu.Unlock()
	}
	w.holder.mu.Lock()
	w.innerClosed = true
	w.holder.mu.Unlock()
	w.poke()
}

// forward sends released events to the consumer, in order.
func (w *heldWatch) forward() {
	defer close(w.out)
	for {
		w.holder.mu.Lock()
		var ev watch.Event
		ready := w.allowed > 0
		if ready {
			ev = w.held[0]
			w.held = w.held[1:]
			w.allowed--
			w.holder.notifyLocked()
		}
		done := !ready && w.innerClosed && len(w.held) == 0
		w.holder.mu.Unlock()
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
		select {
		case w.out <- ev:
		case <-w.stopped:
			return
		}
	}
}
