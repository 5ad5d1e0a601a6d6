package writeback

import "container/heap"

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

// pendingIndex orders the entries with comparable resourceVersions, oldest first, for eviction
// by progress. Write results mostly arrive in resourceVersion order, so an entry newer than the
// last one queued joins a queue at its end: one comparison. A result that arrives after a newer
// one (writers racing, or a late answer) goes to a heap of such late entries instead. The
// oldest entry is the older of the queue's head and the heap's top.
//
// An entry that leaves, replaced by a newer write of its key or evicted by its own event, is
// taken out at once: from the queue in constant time, from the heap in the logarithm of the
// late entries. So a write costs the same whatever the number of pending entries, and the index
// holds one entry per key at most, however many writes come while the informer makes no
// progress.
type pendingIndex struct {
	queue entryList[queueLinks]
	late  lateHeap
	n     int
}

func (p *pendingIndex) len() int { return p.n }

// push files e, which must have a comparable resourceVersion.
func (p *pendingIndex) push(e *entry) {
	p.n++
	if last := p.queue.last; last != nil {
		if c, _ := compareRV(e.rv, last.rv); c < 0 {
			heap.Push(&p.late, e)
			return
		}
	}
	p.queue.pushBack(e)
}

// oldest returns the entry with the lowest resourceVersion, or nil.
func (p *pendingIndex) oldest() *entry {
	first := p.queue.first
	if len(p.late) == 0 {
		return first
	}
	if first != nil {
		if c, _ := compareRV(first.rv, p.late[0].rv); c < 0 {
			return first
		}
	}
	return p.late[0]
}

// remove takes e out; it does nothing for an entry not in the index.
func (p *pendingIndex) remove(e *entry) {
	if e.lateIndex >= 0 {
		heap.Remove(&p.late, e.lateIndex)
		p.n--
	} else if p.queue.remove(e) {
		p.n--
	}
}

// clear empties the index, for entries that are dropped all at once.
func (p *pendingIndex) clear() { *p = pendingIndex{} }

// lateHeap is the pending index's heap of entries that arrived after a newer one. Each entry
// knows its place (lateIndex), so that it can leave from anywhere.
type lateHeap []*entry

func (h lateHeap) Len() int { return len(h) }
func (h lateHeap) Less(i, j int) bool {
	c, _ := compareRV(h[i].rv, h[j].rv)
	return c < 0
}
func (h lateHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].lateIndex = i
	h[j].lateIndex = j
}
func (h *lateHeap) Push(x any) {
	e := x.(*entry)
	e.lateIndex = len(*h)
	*h = append(*h, e)
}
func (h *lateHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.lateIndex = -1
	return e
}
