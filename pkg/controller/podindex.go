package controller

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// podsByCluster indexes broker pods by namespace/instance, so that a reconcile finds its own
// cluster's pods without matching a selector against every pod of the namespace: one namespace
// may hold hundreds of clusters, and a scan per reconcile makes the cost of a decommission grow
// with their number.
const podsByCluster = "brokerCluster"

func podClusterKeys(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	name := pod.Labels[LabelInstance]
	if name == "" {
		return nil, nil
	}
	return []string{pod.Namespace + "/" + name}, nil
}

// clusterPods returns the pods of bc from index (the pod overlay, or the informer's indexer):
// those indexed under the cluster and matching its full selector.
func clusterPods(index cache.Indexer, bc *v1alpha1.BrokerCluster) ([]*corev1.Pod, error) {
	items, err := index.ByIndex(podsByCluster, bc.Namespace+"/"+bc.Name)
	if err != nil {
		return nil, err
	}
	selector := labels.SelectorFromSet(selectorLabels(bc))
	pods := make([]*corev1.Pod, 0, len(items))
	for _, item := range items {
		pod, ok := item.(*corev1.Pod)
		if !ok {
			return nil, fmt.Errorf("pod index holds a %T", item)
		}
		if selector.Matches(labels.Set(pod.Labels)) {
			pods = append(pods, pod)
		}
	}
	return pods, nil
}
