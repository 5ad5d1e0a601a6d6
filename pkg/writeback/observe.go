package writeback

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// ErrAtomicFIFODisabled is returned by Observe when client-go's AtomicFIFO feature gate is off
// (KUBE_FEATURE_AtomicFIFO=false). Without it the informer's store reports no resourceVersion,
// and the overlay can neither tell "not seen yet" from "deleted since" nor evict by progress.
var ErrAtomicFIFODisabled = errors.New("writeback: client-go's AtomicFIFO feature gate is off (KUBE_FEATURE_AtomicFIFO=false): " +
	"the informer's store then reports no resourceVersion, which the overlay needs; turn the gate back on")

// Observe registers the event handler that evicts entries once informer has caught up with
// them. informer must be the one whose indexer the overlay was built on, and client-go's
// AtomicFIFO feature gate must be on (ErrAtomicFIFODisabled). Eviction never decides what a
// read returns (reads always compare), so the order in which the informer runs its handlers
// does not matter.
func (o *Overlay) Observe(informer cache.SharedIndexInformer) (cache.ResourceEventHandlerRegistration, error) {
	if informer == nil {
		return nil, errors.New("writeback: Observe needs an informer, got nil")
	}
	if informer.GetIndexer() != o.inner {
		return nil, errors.New("writeback: Observe needs the informer whose indexer the overlay was built on")
	}
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.AtomicFIFO) {
		return nil, ErrAtomicFIFODisabled
	}
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { o.observed(obj, false) },
		UpdateFunc: func(_, obj interface{}) { o.observed(obj, false) },
		DeleteFunc: func(obj interface{}) { o.observed(obj, true) },
	})
}

// observed handles one informer event. The informer's store already reflects the event when
// handlers run, so dropping an entry here never exposes an older copy.
func (o *Overlay) observed(obj interface{}, deleted bool) {
	if o.observedHook != nil {
		defer o.observedHook(obj)
	}
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
		deleted = true
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	if o.entries.len() == 0 {
		return // the common case: nothing pending
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.clock.Now()
	// The event moved the informer's progress: that evicts every entry it passed, whatever
	// its key, including those whose own event a relist skipped.
	o.catchUpLocked(now)
	if e := o.entries.lookup(m.GetNamespace(), m.GetName()); e != nil {
		if reason := evictionReason(e, m, deleted); reason != "" {
			o.evictLocked(e, reason, now)
		}
	}
	o.sweepLocked(now)
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
