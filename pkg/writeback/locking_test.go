package writeback

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/tools/cache"
)

// No log call runs under the overlay's lock: with the logger's output stuck in the middle of
// a line (a full pipe, a slow sink), other writers, the informer's handler and sweeps go on.
// Run under -race, it also checks that the queued lines are handed over safely.
func TestNoLogUnderTheOverlaysLock(t *testing.T) {
	stuck, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	logger := funcr.New(func(prefix, args string) {
		if first.CompareAndSwap(false, true) {
			close(stuck)
			<-release // the first line blocks until the test lets it go
		}
	}, funcr.Options{Verbosity: 4})
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(1, 10))
	o := NewOverlay("configmaps", store, Options{Logger: logger})

	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		o.Record(configMap(1, 11)) // logs "recorded a write" at -v=4, and blocks in it
	}()
	select {
	case <-stuck:
	case <-time.After(30 * time.Second):
		t.Fatal("the first write logged nothing")
	}
	// The first writer is stuck in its log call. Everything else that takes the lock must go on.
	done := make(chan struct{})
	go func() {
		defer close(done)
		o.Record(configMap(2, 12))
		next := configMap(1, 13)
		_ = store.Update(next)
		o.observed(next, false) // the informer's handler evicts cm-00001
		o.Sweep()
		o.RecordDelete("ns", "cm-00002", "")
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writes waited for a log line of another writer: a log call is made under the overlay's lock")
	}
	close(release)
	<-firstDone
	// cm-00001 was evicted by its event, and the store's progress (13) has passed the
	// tombstone of cm-00002, which it never held.
	if n := o.Len(); n != 0 {
		t.Fatalf("Len %d, want 0", n)
	}
}
