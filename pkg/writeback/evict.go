package writeback

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// When an entry goes. Everything that drops an entry is in this file; nothing else does.
//
//   - By progress (catchUpLocked): once the informer's progress reaches an entry's
//     resourceVersion, the store holds the key's state at or after the write. It runs at
//     every informer event, every Record and RecordDelete, and every Sweep.
//   - By its own event (evictionReason): the informer delivered the key at or past the write,
//     the delete of the object, or another incarnation.
//   - At record time (informerHolds, tombstoneObserved): the informer already holds the write
//     or the delete, so the entry is not kept (or goes at once after publishing).
//   - Replaced (putLocked): a newer write of the key takes the entry's place, and the old
//     entry leaves the eviction index and the aging list with it.
//   - Reset (resetLocked): the progress went back (etcd restored); every entry goes.
//
// Never for its age or for room: an entry older than the TTL is reported as stalled and still
// served (stall.go).

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
	for {
		e := o.pending.oldest()
		if e == nil {
			break
		}
		if c, _ := compareRV(e.rv, p); c > 0 {
			break
		}
		o.pending.remove(e)
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
	o.logErrorLocked("Write-back dropped every entry: the informer's resourceVersion went back (etcd restored?), so they belong to a history that no longer exists",
		"from", o.progress, "to", p, "entries", len(all))
	o.entries.clearLocked()
	if o.metrics != nil {
		o.metrics.entries.Sub(float64(len(all)))
	}
	for _, e := range all {
		e.queue, e.aging, e.lateIndex = entryLinks{}, entryLinks{}, -1
		o.forgetLocked(e, now)
		o.countEviction(e, EvictReset, now)
	}
	o.pending.clear()
	o.aging = entryList[agingLinks]{}
}

// evictionReason says why the event m ends entry e, or "" when e must stay.
func evictionReason(e *entry, m metav1.Object, deleted bool) string {
	c, ok := compareRV(m.GetResourceVersion(), e.rv)
	sameUID := e.uid == "" || m.GetUID() == e.uid
	switch {
	case deleted && sameUID:
		return EvictDeleted
	case deleted:
		// The delete of another incarnation: it ends the entry only if it is not older.
		if !ok || c >= 0 {
			return EvictDeleted
		}
	case e.tombstone():
		if !sameUID && (!ok || c > 0) {
			return EvictRecreated
		}
		if sameUID && (!ok || (c > 0 && m.GetDeletionTimestamp() != nil)) {
			return EvictObserved
		}
	default:
		if !ok || c >= 0 {
			return EvictObserved
		}
	}
	return ""
}

// evictLocked drops e, if it is still the entry for its key.
func (o *Overlay) evictLocked(e *entry, reason string, now time.Time) {
	if o.entries.get(e.key) != e {
		return
	}
	o.removeLocked(e, now)
	o.countEviction(e, reason, now)
}

func (o *Overlay) countEviction(e *entry, reason string, now time.Time) {
	if o.metrics != nil {
		o.metrics.evictions[reason].Inc()
		if reason == EvictObserved && !e.tombstone() {
			o.metrics.lag.Observe(now.Sub(e.recorded).Seconds())
		}
	}
	o.logLocked(4, "Write-back evicted an entry", "key", e.key, "reason", reason, "resourceVersion", e.rv, "tombstone", e.tombstone(), "held", now.Sub(e.recorded))
}

// removeLocked takes e out of the overlay. Callers hold o.mu.
func (o *Overlay) removeLocked(e *entry, now time.Time) {
	if !o.entries.removeLocked(e) {
		return
	}
	o.untrackLocked(e, now)
	if o.metrics != nil {
		o.metrics.entries.Dec()
	}
}

// untrackLocked forgets the bookkeeping of an entry that left (removed or replaced).
func (o *Overlay) untrackLocked(e *entry, now time.Time) {
	o.pending.remove(e)
	o.aging.remove(e)
	o.forgetLocked(e, now)
}
