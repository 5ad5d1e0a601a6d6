package writeback

import (
	"container/heap"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The informer's store reports how far it has got: LastStoreSyncResourceVersion, which every
// event, relist and watch bookmark moves, under the same lock as the objects it stores. Once
// it reaches a write's resourceVersion, the store holds the key's state at or after the write,
// whatever events came for the key, so the entry has nothing left to add.
//
// Within one etcd history it never goes back: events arrive in order, a relist is never older
// than what the store already has. When it does go back, etcd was restored (or the informer
// was pointed at another cluster) and the entries belong to a history that no longer exists.

// progressOf reads the store's progress. It must be read before the lookup it is used with:
// the store only moves forward, so a lookup that finds no copy after the progress had reached
// a write proves the object went away after the write.
func (o *Overlay) progressOf() string { return o.inner.LastStoreSyncResourceVersion() }

// catchUpLocked evicts every entry the informer's progress has passed, and drops them all when
// the progress went back. Callers hold o.mu.
func (o *Overlay) catchUpLocked(now time.Time) {
	o.logReads.Store(o.logger.V(5).Enabled())
	p := o.progressOf()
	if !comparableRV(p) {
		return // not synced yet: nothing to learn
	}
	if o.progress != "" {
		if c, _ := compareRV(p, o.progress); c < 0 {
			o.resetLocked(p, now)
		}
	}
	o.progress = p
	for len(o.pending) > 0 {
		e := o.pending[0]
		if c, _ := compareRV(e.rv, p); c > 0 {
			break
		}
		heap.Pop(&o.pending)
		reason := EvictObserved
		if e.tombstone() {
			// The delete itself has a newer resourceVersion than the tombstone knows; the
			// tombstone goes only once the store shows the object gone. Otherwise it leaves
			// with the delete event.
			if reason = o.tombstoneObserved(e); reason == "" {
				continue
			}
		}
		o.evictLocked(e, reason, now)
	}
}

// informerHolds tells whether the informer's store already holds the write e, or a newer
// state of its key: then an entry would add nothing, and might wait for an event that has
// already been handled.
func (o *Overlay) informerHolds(e *entry) bool {
	if !e.rvComparable {
		return false
	}
	if c, ok := compareRV(o.progressOf(), e.rv); ok && c >= 0 {
		return true
	}
	item, exists, err := o.inner.GetByKey(e.key)
	if err != nil || !exists {
		return false
	}
	m, ok := item.(metav1.Object)
	if !ok {
		return false
	}
	c, ok := compareRV(m.GetResourceVersion(), e.rv)
	return ok && c >= 0
}

// tombstoneObserved tells why the tombstone t is no longer needed, or "" while the store may
// still show the deleted object.
func (o *Overlay) tombstoneObserved(t *entry) string {
	p := o.progressOf()
	item, exists, err := o.inner.GetByKey(t.key)
	if err != nil {
		return ""
	}
	if !exists {
		// Absent, with the progress at or past the object's last known state: it is gone.
		if c, ok := compareRV(p, t.rv); ok && c >= 0 {
			return EvictDeleted
		}
		return "" // the store has not even seen the object yet
	}
	if _, _, src := o.resolve(t, item, true, p); src == hiddenByTombstone {
		return ""
	}
	if m, ok := item.(metav1.Object); ok && m.GetUID() != t.uid {
		return EvictRecreated
	}
	return EvictObserved // terminating, seen after the delete
}

// resetLocked drops every entry: the informer's resourceVersion went back from o.progress to
// p, so the entries' resourceVersions belong to a history that no longer exists and comparing
// them with the store's would serve writes that were undone.
func (o *Overlay) resetLocked(p string, now time.Time) {
	all := o.entries.all()
	o.logger.Error(nil, "Write-back dropped every entry: the informer's resourceVersion went back (etcd restored?), so they belong to a history that no longer exists",
		"from", o.progress, "to", p, "entries", len(all))
	o.entries.clearLocked()
	if o.metrics != nil {
		o.metrics.entries.Sub(float64(len(all)))
	}
	for _, e := range all {
		e.heapIndex = -1
		o.forgetLocked(e, now)
		o.countEviction(e, EvictReset, now)
	}
	o.pending = o.pending[:0]
	o.aging = agingList{}
}

// pendingHeap orders the entries with comparable resourceVersions, oldest first. Each entry
// knows its place (heapIndex), so that an entry replaced by a newer write of its key, or
// evicted by its own event, leaves the heap at once: the heap holds one entry per key at most,
// whatever the number of writes while the informer makes no progress.
type pendingHeap []*entry

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	c, _ := compareRV(h[i].rv, h[j].rv)
	return c < 0
}
func (h pendingHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIndex = i
	h[j].heapIndex = j
}
func (h *pendingHeap) Push(x any) {
	e := x.(*entry)
	e.heapIndex = len(*h)
	*h = append(*h, e)
}
func (h *pendingHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.heapIndex = -1
	return e
}
