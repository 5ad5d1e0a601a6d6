package writeback

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
