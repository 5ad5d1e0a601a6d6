package writeback

import (
	"errors"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Record stores a successful write's returned object, unless the overlay or the informer
// already holds that resourceVersion or a newer one. A late or out-of-order result therefore
// never rolls a read back. The object is deep-copied here, once, so the caller may keep
// mutating what its client returned.
func (o *Overlay) Record(obj runtime.Object) {
	if obj == nil || isNilPointer(obj) {
		return
	}
	m, err := meta.Accessor(obj)
	if err == nil && m.GetName() == "" {
		err = errors.New("the object has no name")
	}
	if err != nil {
		o.logger.Error(err, "Write-back cannot record a write result", "type", reflect.TypeOf(obj))
		return
	}
	cp := obj.DeepCopyObject()
	if o.asStored != nil {
		if cp, err = o.asStored(cp); err != nil {
			o.logger.Error(err, "Write-back cannot record a write result", "type", reflect.TypeOf(obj))
			return
		}
	}
	cm, _ := meta.Accessor(cp)
	o.mu.Lock()
	defer o.unlock()
	now := o.clock.Now()
	o.catchUpLocked(now)

	e := &entry{
		key:       keyOf(cm.GetNamespace(), cm.GetName()),
		namespace: cm.GetNamespace(),
		name:      cm.GetName(),
		obj:       cp,
		meta:      cm,
		uid:       cm.GetUID(),
		rv:        cm.GetResourceVersion(),
		recorded:  now,
		expires:   now.Add(o.ttl),
	}
	e.rvComparable = comparableRV(e.rv)
	old := o.entries.table.Load().get(e.key)
	if old != nil && !supersedes(e, old) {
		o.logLocked(4, "Write-back ignored a write result older than the one it holds", "key", e.key, "resultRV", e.rv, "heldRV", old.rv)
		return
	}
	// The informer may have stored this write before the call returned. Then there is
	// nothing to hold, and the event that would evict the entry may be gone already.
	if o.informerHolds(e) {
		if old != nil {
			o.evictLocked(old, EvictObserved, now)
		}
		return
	}
	o.putLocked(e, now)
	o.logLocked(4, "Write-back recorded a write", "key", e.key, "uid", e.uid, "resourceVersion", e.rv)
	// The informer may have stored the write and run its handler between the check and the
	// publish; the handler then found nothing to evict. Anything stored after this second
	// look runs a handler that finds the entry.
	if o.informerHolds(e) {
		o.evictLocked(e, EvictObserved, now)
	}
	o.sweepLocked(now)
}

// supersedes tells whether a new write result e may replace the entry old.
func supersedes(e, old *entry) bool {
	if old.tombstone() && e.uid == old.uid && e.meta.GetDeletionTimestamp() == nil {
		return false // a late result for an object already deleted: never resurrect it
	}
	if e.rvComparable && old.rvComparable {
		c, _ := compareRV(e.rv, old.rv)
		return c > 0
	}
	// Unordered resourceVersions: results are taken in the order they arrive.
	return true
}

// RecordDelete stores a tombstone after a successful Delete, hiding the object until the
// informer observes the delete. uid names the deleted object; when empty, the UID of the copy
// reads currently serve is used. When reads serve nothing for the key, or serve another UID,
// there is nothing known to hide and no tombstone is stored.
//
// Objects held by finalizers keep existing with a deletionTimestamp. The tombstone hides them
// until the informer delivers a copy with a deletionTimestamp and a resourceVersion newer than
// the last one known before the delete; from then on reads show the terminating object.
func (o *Overlay) RecordDelete(namespace, name string, uid types.UID) {
	key := keyOf(namespace, name)
	o.mu.Lock()
	defer o.unlock()
	now := o.clock.Now()
	o.catchUpLocked(now)

	progress := o.progressOf()
	item, exists, err := o.inner.GetByKey(key)
	if err != nil {
		return
	}
	served, found := item, exists
	old := o.entries.table.Load().get(key)
	if old != nil {
		served, found, _ = o.resolve(old, item, exists, progress)
	}
	if !found {
		return
	}
	sm, err := meta.Accessor(served)
	if err != nil {
		return
	}
	if uid != "" && uid != sm.GetUID() {
		// The server deleted another incarnation than the one reads serve; which of the two is
		// newer is unknown, so the served copy is left alone.
		o.logLocked(4, "Write-back recorded no tombstone: the deleted UID is not the served one", "key", key, "deletedUID", uid, "servedUID", sm.GetUID())
		return
	}
	t := &entry{
		key:       key,
		namespace: namespace,
		name:      name,
		uid:       sm.GetUID(),
		rv:        sm.GetResourceVersion(),
		recorded:  now,
		expires:   now.Add(o.ttl),
	}
	t.rvComparable = comparableRV(t.rv)
	o.putLocked(t, now)
	o.logLocked(4, "Write-back recorded a delete", "key", key, "uid", t.uid, "lastResourceVersion", t.rv)
	// As for Record: the delete event may have been stored and handled before the publish.
	if reason := o.tombstoneObserved(t); reason != "" {
		o.evictLocked(t, reason, now)
	}
	o.sweepLocked(now)
}

func keyOf(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func isNilPointer(obj runtime.Object) bool {
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
