package writeback

import "time"

// A healthy informer catches up with a write within milliseconds: its events, relists and
// bookmarks move its progress past the write, and the entry leaves. An entry that outlives the
// TTL therefore means the informer made no progress for that long: a stalled watch. Dropping
// the entry then would roll reads back to the informer's stale copy, so the overlay keeps
// serving it and says so: writeback_stalled_entries counts such entries, and each one is
// logged as an error when it stalls and at level 0 when the informer finally catches up.

// sweepLocked marks the entries that outlived the TTL. It runs on writes, informer events and
// Sweep; reads never look at the clock. Callers hold o.mu.
func (o *Overlay) sweepLocked(now time.Time) {
	for {
		e := o.aging.first
		if e == nil || now.Before(e.expires) {
			return
		}
		o.aging.remove(e) // stays in the overlay; it is looked at once
		e.stalled = true
		o.stalled++
		if o.metrics != nil {
			o.metrics.stalled.Inc()
		}
		o.logErrorLocked("Write-back: the informer has not caught up with a write within the TTL; its watch may be stalled. The write is still served",
			"key", e.key, "resourceVersion", e.rv, "tombstone", e.tombstone(), "informerResourceVersion", o.progressOf(), "held", now.Sub(e.recorded), "ttl", o.ttl)
	}
}

// forgetLocked notes that e left the overlay (evicted or replaced by a newer write).
func (o *Overlay) forgetLocked(e *entry, now time.Time) {
	if !e.stalled {
		return
	}
	e.stalled = false
	o.stalled--
	if o.metrics != nil {
		o.metrics.stalled.Dec()
	}
	o.logLocked(0, "Write-back: the informer caught up with a write after a stall", "key", e.key, "resourceVersion", e.rv, "held", now.Sub(e.recorded))
}
