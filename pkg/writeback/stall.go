package writeback

import "time"

// A healthy informer catches up with a write within milliseconds: its events, relists and
// bookmarks move its progress past the write, and the entry leaves. An entry that outlives the
// TTL therefore means the informer made no progress for that long: a stalled watch. Dropping
// the entry then would roll reads back to the informer's stale copy, so the overlay keeps
// serving it and says so: writeback_stalled_entries counts such entries, and each one is
// logged as an error when it stalls and at level 0 when the informer finally catches up.

// sweepLocked marks the entries that outlived the TTL. It runs on writes, informer events and
// Len; reads never look at the clock. Callers hold o.mu.
func (o *Overlay) sweepLocked(now time.Time) {
	cur := o.snap.Load()
	for {
		e := o.aging.front()
		if e == nil {
			return
		}
		if cur.byKey[e.key] != e {
			o.aging.pop() // replaced or evicted
			continue
		}
		if now.Before(e.expires) {
			return
		}
		o.aging.pop()
		e.stalled = true
		o.stalled++
		if o.metrics != nil {
			o.metrics.stalled.Inc()
		}
		o.logger.Error(nil, "Write-back: the informer has not caught up with a write within the TTL; its watch may be stalled. The write is still served",
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
	o.logger.Info("Write-back: the informer caught up with a write after a stall", "key", e.key, "resourceVersion", e.rv, "held", now.Sub(e.recorded))
}

// agingQueue holds entries in the order they were recorded, so that the stall check looks only
// at the oldest. Entries that left are skipped when they reach the front.
type agingQueue struct {
	items []*entry
	head  int
}

func (q *agingQueue) push(e *entry) { q.items = append(q.items, e) }

func (q *agingQueue) front() *entry {
	if q.head == len(q.items) {
		return nil
	}
	return q.items[q.head]
}

func (q *agingQueue) pop() {
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 1024 && q.head > len(q.items)/2 {
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
}
