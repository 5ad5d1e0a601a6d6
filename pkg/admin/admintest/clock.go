package admintest

import (
	"sync"
	"time"
)

// Clock tells the simulator the time; drains finish by it. A FakeClock, or any type with a
// Now method such as k8s.io/utils/clock/testing.FakeClock, makes drains advance on demand.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// afterClock is a Clock that can also wait, as FakeClock and k8s.io/utils/clock's clocks can.
type afterClock interface {
	After(d time.Duration) <-chan time.Time
}

// after fires once d has passed by clock; a Clock that cannot wait is waited on by wall time.
func after(clock Clock, d time.Duration) <-chan time.Time {
	if a, ok := clock.(afterClock); ok {
		return a.After(d)
	}
	return time.After(d)
}

// FakeClock is a Clock that moves only when told to. Safe for concurrent use.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// After returns a channel that receives the time once Advance has moved the clock d onwards.
func (f *FakeClock) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	at := f.now.Add(d)
	if !at.After(f.now) {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, waiter{at: at, ch: ch})
	return ch
}

// Waiters counts the After calls still waiting, so a test can advance once they are in place.
func (f *FakeClock) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// NewFakeClock returns a FakeClock showing t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

// Now returns the clock's current time.
func (f *FakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward by d.
func (f *FakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at.After(f.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- f.now
	}
	f.waiters = kept
}
