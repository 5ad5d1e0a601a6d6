package writeback

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// NewObserving lays a new overlay over informer's indexer and registers its observer on
// informer: NewOverlay and Observe in one call. It returns the overlay and the HasSynced of the
// observer's registration; wait for it with the informer's own before the first read
// (cache.WaitForCacheSync). Build the lister on the overlay and wrap the writing client with
// it:
//
//	overlay, synced, err := writeback.NewObserving("configmaps", factory.Core().V1().ConfigMaps().Informer(), writeback.Options{})
//	lister := corelisters.NewConfigMapLister(overlay)
//	client := writeback.Wrap(clientset.CoreV1().ConfigMaps(ns), ns, overlay)
//
// It may be called before or after the informer starts: a handler added late is first given
// the informer's current objects, and the returned HasSynced says when that is done.
func NewObserving(resource string, informer cache.SharedIndexInformer, opts Options) (*Overlay, cache.InformerSynced, error) {
	return newObservingAs(resource, informer, opts, nil)
}

// NewDynamic is NewObserving for the informer of gvr in a dynamicinformer factory. The informer
// holds *unstructured.Unstructured; read through dynamiclister.New(overlay, gvr) and write
// through WrapDynamic. A typed write result (from a typed client's Wrap, or Record) is
// converted to unstructured when recorded, with gvr's apiVersion and the object's kind set
// when it carried none (typed clients leave them empty), as every informer copy has them. A
// metadata-only result (*metav1.PartialObjectMetadata) is refused and logged as an error: it
// is not the whole object. The resource label is gvr's group-resource
// ("deployments.apps"). Call it before the factory's Start, or call Start again after it: a
// factory starts only the informers it has handed out.
func NewDynamic(factory dynamicinformer.DynamicSharedInformerFactory, gvr schema.GroupVersionResource, opts Options) (*Overlay, cache.InformerSynced, error) {
	if factory == nil {
		return nil, nil, fmt.Errorf("writeback: NewDynamic(%s) needs a factory, got nil", gvr)
	}
	return newObservingAs(gvr.GroupResource().String(), factory.ForResource(gvr).Informer(), opts, asUnstructuredFor(gvr))
}

// newObservingAs is NewObserving for an informer that holds one type for every resource: each
// recorded write result is turned into it with asStored.
func newObservingAs(resource string, informer cache.SharedIndexInformer, opts Options, asStored func(runtime.Object) (runtime.Object, error)) (*Overlay, cache.InformerSynced, error) {
	if informer == nil {
		return nil, nil, errors.New("writeback: NewObserving needs an informer, got nil")
	}
	o := NewOverlay(resource, informer.GetIndexer(), opts)
	o.asStored = asStored
	reg, err := o.Observe(informer)
	if err != nil {
		return nil, nil, err
	}
	return o, reg.HasSynced, nil
}
