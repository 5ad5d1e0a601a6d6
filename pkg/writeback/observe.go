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
	return o.observe(informer, func(interface{}) {})
}

// observe registers the handler, which calls after once it has handled each event. after is
// the seam tests use to know when the overlay has handled an event (client-go runs each
// handler on its own goroutine, so a handler of the test's own would race with it).
func (o *Overlay) observe(informer cache.SharedIndexInformer, after func(obj interface{})) (cache.ResourceEventHandlerRegistration, error) {
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { o.observed(obj, false); after(obj) },
		UpdateFunc: func(_, obj interface{}) { o.observed(obj, false); after(obj) },
		DeleteFunc: func(obj interface{}) { o.observed(obj, true); after(obj) },
	})
}

// observed handles one informer event. The informer's store already reflects the event when
// handlers run, so dropping an entry here never exposes an older copy.
func (o *Overlay) observed(obj interface{}, deleted bool) {
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
	defer o.unlock()
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
