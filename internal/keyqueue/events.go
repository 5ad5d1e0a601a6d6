package keyqueue

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
)

// Namespaces are the namespaces to watch: all of them when none is named.
func Namespaces(named []string) []string {
	if len(named) == 0 {
		return []string{metav1.NamespaceAll}
	}
	return named
}

// Indexed is what AddIndexed reads: an overlay or an informer's indexer.
type Indexed interface {
	ByIndex(index, value string) ([]any, error)
}

// AddIndexed queues every object that index maps to value.
func AddIndexed(q Queue, from Indexed, index, value string) {
	objs, err := from.ByIndex(index, value)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, obj := range objs {
		Add(q, obj)
	}
}

// ClusterEvents calls changed with a BrokerCluster's namespace/name on the events that can
// change the reconcile of a resource that names it: its creation, its deletion, a new spec
// generation, a deletion begun, a re-creation; not its frequent status writes. deleted, when
// set, is called too when it goes.
func ClusterEvents(changed func(key string), deleted func(namespace, name string)) cache.ResourceEventHandlerFuncs {
	key := func(obj any) (metav1.Object, bool) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		m, ok := obj.(metav1.Object)
		if ok {
			changed(m.GetNamespace() + "/" + m.GetName())
		}
		return m, ok
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { key(obj) },
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(metav1.Object)
			n, ok2 := cur.(metav1.Object)
			if !ok1 || !ok2 || o.GetUID() != n.GetUID() || o.GetGeneration() != n.GetGeneration() ||
				(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) {
				key(cur)
			}
		},
		DeleteFunc: func(obj any) {
			if m, ok := key(obj); ok && deleted != nil {
				deleted(m.GetNamespace(), m.GetName())
			}
		},
	}
}
