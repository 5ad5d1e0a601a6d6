package writeback

import (
	"runtime"

	corev1 "k8s.io/api/core/v1"
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// heldBytesAfterWrites records n writes of one 64 KiB object to an overlay whose informer
// makes no progress (a stalled watch), and returns the heap the overlay holds afterwards.
func heldBytesAfterWrites(n int) (held int64, pending int, entries int) {
	return heldBytesAfterWritesOf(1, n, 64<<10)
}

// heldBytesAfterWritesOf records n writes of each of keys objects of size bytes, round robin,
// with the informer stalled.
func heldBytesAfterWritesOf(keys, n, size int) (held int64, pending int, entries int) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	objs := make([]*corev1.ConfigMap, keys)
	for k := range objs {
		cm := configMap(k, 10)
		_ = store.Add(cm)
		objs[k] = cm.DeepCopy()
		objs[k].BinaryData = map[string][]byte{"payload": make([]byte, size)} // deep-copied on each Record
	}
	o := NewOverlay("configmaps", store, Options{})
	before := heapInUse()
	for i := range n {
		for _, big := range objs {
			big.ResourceVersion = strconv.Itoa(100 + i)
			o.Record(big)
		}
	}
	held = heapInUse() - before
	o.mu.Lock()
	pending = o.pending.len()
	o.mu.Unlock()
	entries = o.Len()
	runtime.KeepAlive(o)
	runtime.KeepAlive(objs) // measured before and after: the written objects are not the overlay's
	return held, pending, entries
}

func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// Memory is bounded by the keys written, not by the writes: a controller that keeps writing
// one object's status while the watch is stalled holds one copy of it, however many writes.
func TestStalledWritesOfOneKeyHoldOneCopy(t *testing.T) {
	const object = 64 << 10
	for _, n := range []int{10, 2000} {
		held, pending, entries := heldBytesAfterWrites(n)
		if entries != 1 || pending != 1 {
			t.Errorf("%d writes of one key: %d entries, %d in the eviction index; want 1 and 1", n, entries, pending)
		}
		// One copy of the object, plus slack for the runtime's own noise; 2,000 kept copies
		// are 128 MiB.
		if held > 8*object {
			t.Errorf("%d writes of one key with the informer stalled hold %d KiB, want about one %d KiB copy", n, held>>10, object>>10)
		}
	}
}
