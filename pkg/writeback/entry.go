package writeback

import (
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// entry is what the overlay holds for one key: the object a write returned, or a tombstone
// left by a successful Delete. Entries are immutable once published.
type entry struct {
	key       string
	namespace string
	name      string

	// obj is the recorded write result; nil for a tombstone. meta is the same object's metadata.
	obj  runtime.Object
	meta metav1.Object

	uid types.UID
	// rv is the written object's resourceVersion, or for a tombstone the last resourceVersion
	// known for the deleted object.
	rv string
	// rvComparable is false when rv is not an etcd revision; such an entry is kept until the
	// informer delivers any event for the key.
	rvComparable bool

	recorded time.Time
	expires  time.Time

	// beaten is the informer copy that a read last found older than this entry: a read that
	// finds the same object again (an equal interface value, see identity.go) skips comparing
	// resourceVersions. Store objects are immutable, and holding the copy keeps it alive, so
	// equal means same.
	beaten atomic.Value

	// Writers' bookkeeping, under Overlay.mu; readers never look at it.
	// stalled is set once the entry has outlived the TTL.
	stalled bool
	// queue is the entry's place in the queue of Overlay.pending; lateIndex its place in that
	// index's heap of late entries, or -1.
	queue     entryLinks
	lateIndex int
	// aging is the entry's place in the list of entries in the order they were recorded
	// (Overlay.aging).
	aging entryLinks
}

func (e *entry) tombstone() bool { return e.obj == nil }

// compareRV orders two resourceVersions as etcd revisions. ok is false when either one cannot
// be compared, in which case the caller must not draw any conclusion from the order.
func compareRV(a, b string) (cmp int, ok bool) {
	c, err := resourceversion.CompareResourceVersion(a, b)
	if err != nil {
		return 0, false
	}
	return c, true
}

func comparableRV(rv string) bool {
	_, ok := compareRV(rv, rv)
	return ok
}
