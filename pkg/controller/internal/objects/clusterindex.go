package objects

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// byCluster indexes the pods and Services of broker clusters by namespace/instance, so that a
// reconcile finds its own cluster's objects without matching a selector against every object of
// the namespace: one namespace may hold hundreds of clusters, and a scan per reconcile makes the
// cost of a decommission grow with their number.
const ByCluster = "brokerCluster"

// clusterIndexKeys is the byCluster index function: the object's namespace/instance label.
func clusterIndexKeys(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil // not an object: nothing to index it under
	}
	name := m.GetLabels()[LabelInstance]
	if name == "" {
		return nil, nil
	}
	return []string{m.GetNamespace() + "/" + name}, nil
}

// indexByCluster adds the byCluster index to an informer.
func IndexByCluster(informer cache.SharedIndexInformer) error {
	return informer.AddIndexers(cache.Indexers{ByCluster: clusterIndexKeys})
}

// clusterObjects returns the objects of type T that index (an overlay, or an informer's
// indexer) holds under bc and that match selector.
func clusterObjects[T metav1.Object](index cache.Indexer, bc *v1alpha1.BrokerCluster, selector labels.Selector) ([]T, error) {
	items, err := index.ByIndex(ByCluster, bc.Namespace+"/"+bc.Name)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(items))
	for _, item := range items {
		obj, ok := item.(T)
		if !ok {
			return nil, fmt.Errorf("%s index holds a %T", ByCluster, item)
		}
		if selector.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// clusterPods returns the pods of bc from index: those indexed under the cluster and matching
// its full selector.
func ClusterPods(index cache.Indexer, bc *v1alpha1.BrokerCluster) ([]*corev1.Pod, error) {
	return clusterObjects[*corev1.Pod](index, bc, labels.SelectorFromSet(SelectorLabels(bc)))
}

// clusterServices returns the Services of bc from index that carry all of the given labels.
func ClusterServices(index cache.Indexer, bc *v1alpha1.BrokerCluster, with labels.Set) ([]*corev1.Service, error) {
	return clusterObjects[*corev1.Service](index, bc, labels.SelectorFromSet(with))
}
