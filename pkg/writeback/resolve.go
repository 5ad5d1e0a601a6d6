package writeback

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// source says which copy a read served and why.
type source int

const (
	// fromInformer: the informer's copy is as new as the entry, or newer.
	fromInformer source = iota
	// fromOverlay: the entry is newer than the informer's copy, or the informer has none yet.
	fromOverlay
	// hiddenByTombstone: the controller deleted the object; the informer has not seen it go.
	hiddenByTombstone
	// goneSinceWrite: the informer has moved past the write and no longer holds the object, so
	// it was deleted (or left the informer's selector) after the write.
	goneSinceWrite
)

func (s source) String() string {
	switch s {
	case fromOverlay:
		return "overlay"
	case hiddenByTombstone:
		return "tombstone"
	case goneSinceWrite:
		return "gone since write"
	default:
		return "informer"
	}
}

// resolve decides what a read of e's key returns, given the informer's copy (item, exists)
// and the store's progress read BEFORE that copy was looked up. It never allocates and never
// copies: objects are shared read-only, as listers share them.
//
// Why the order matters: the store takes in an object and moves its progress in one step, and
// never moves back. A progress at or past the write, read before a lookup that finds no copy,
// proves the copy went away after the write. Read after the lookup, it proves nothing: the
// store may have taken in the written object in between, and "not found" would be a lie.
func (o *Overlay) resolve(e *entry, item interface{}, exists bool, progress string) (interface{}, bool, source) {
	if !exists {
		if e.tombstone() {
			return nil, false, hiddenByTombstone
		}
		// The informer has no copy. If it had already processed events at or past the write,
		// the object was there and went away; otherwise the informer simply has not caught up.
		if c, ok := compareRV(progress, e.rv); ok && c >= 0 {
			return nil, false, goneSinceWrite
		}
		return e.obj, true, fromOverlay
	}
	m, ok := item.(metav1.Object)
	if !ok {
		return item, true, fromInformer
	}
	if e.tombstone() {
		c, ok := compareRV(m.GetResourceVersion(), e.rv)
		if m.GetUID() != e.uid && (!ok || c > 0) {
			return item, true, fromInformer // re-created: a new object, not the one deleted
		}
		if m.GetDeletionTimestamp() != nil && ok && c > 0 {
			return item, true, fromInformer // still terminating (finalizers), seen after the delete
		}
		// The deleted object, or an older incarnation that preceded it.
		return nil, false, hiddenByTombstone
	}
	c, ok := compareRV(m.GetResourceVersion(), e.rv)
	if ok && c >= 0 {
		return item, true, fromInformer
	}
	// Newer write, or an resourceVersion that cannot be ordered: the entry stays authoritative
	// until the informer sends an event for the key.
	return e.obj, true, fromOverlay
}
