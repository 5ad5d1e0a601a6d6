package writebacktest

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// The fake tracker's watches have a buffer of 100 events, and the tracker panics ("channel
// full") when a write finds one full: a reader that falls behind (a goroutine not scheduled
// on a busy machine, a Holder's consumer, a slow informer) is enough under a few concurrent
// writers. A server would keep the writes and drop or close the slow watch instead. The
// stamping tracker therefore paces writers: each write waits until every open watch has room
// for its event, which costs nothing while readers keep up.

// pacedWatch reads one tracker watch, gives delete events their resourceVersion, and hands
// the events on; each read tells waiting writers that there is room again.
type pacedWatch struct {
	s        *stampingTracker
	raw      watch.Interface
	out      chan watch.Event
	stopOnce sync.Once
	stopped  chan struct{}
}

func (s *stampingTracker) pace(raw watch.Interface) watch.Interface {
	w := &pacedWatch{s: s, raw: raw, out: make(chan watch.Event), stopped: make(chan struct{})}
	s.mu.Lock()
	s.watches[w] = struct{}{}
	s.mu.Unlock()
	go w.forward()
	return w
}

func (w *pacedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *pacedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.forget()
		w.raw.Stop()
	})
}

func (w *pacedWatch) forget() {
	w.s.mu.Lock()
	delete(w.s.watches, w)
	w.s.room.Broadcast()
	w.s.mu.Unlock()
}

func (w *pacedWatch) forward() {
	defer close(w.out)
	defer w.forget()
	for ev := range w.raw.ResultChan() {
		w.s.mu.Lock()
		ev = w.s.rewriteLocked(ev)
		w.s.room.Broadcast()
		w.s.mu.Unlock()
		select {
		case w.out <- ev:
		case <-w.stopped:
			return
		}
	}
}

// full tells whether the tracker's channel has no room for one more event.
func (w *pacedWatch) full() bool {
	ch := w.raw.ResultChan()
	return cap(ch) > 0 && len(ch) >= cap(ch)
}

// awaitRoomLocked waits until every open watch can take one more event. Callers hold s.mu.
func (s *stampingTracker) awaitRoomLocked() {
	for {
		full := false
		for w := range s.watches {
			if w.full() {
				full = true
				break
			}
		}
		if !full {
			return
		}
		s.room.Wait()
	}
}
