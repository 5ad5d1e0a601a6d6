package controller

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/writeback"
)

func clusterNamed(namespace, name string) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

func brokerPodOf(bc *v1alpha1.BrokerCluster, ordinal int) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: bc.Namespace, Name: fmt.Sprintf("%s-%d", bc.Name, ordinal), ResourceVersion: "10",
		UID: types.UID(fmt.Sprintf("%s-%s-%d", bc.Namespace, bc.Name, ordinal)), Labels: selectorLabels(bc),
	}}
}

func podIndexer(t testing.TB, pods ...*corev1.Pod) cache.Indexer {
	t.Helper()
	index := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, podsByCluster: podClusterKeys,
	})
	for _, p := range pods {
		if err := index.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return index
}

func podNames(pods []*corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		names = append(names, p.Namespace+"/"+p.Name)
	}
	slices.Sort(names)
	return names
}

func TestClusterPodsFindsOnlyTheClustersOwnPods(t *testing.T) {
	a, b, otherA := clusterNamed("ns", "a"), clusterNamed("ns", "b"), clusterNamed("other", "a")
	stray := brokerPodOf(a, 7)
	delete(stray.Labels, LabelManagedBy) // the instance label alone is not the cluster's selector
	index := podIndexer(t, brokerPodOf(a, 0), brokerPodOf(a, 1), brokerPodOf(b, 0), brokerPodOf(otherA, 0), stray)

	got, err := clusterPods(index, a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ns/a-0", "ns/a-1"}; !slices.Equal(podNames(got), want) {
		t.Errorf("pods of ns/a: %v, want %v", podNames(got), want)
	}

	// Through the write-back overlay, the cluster's pods are its served copies: a pod the
	// controller has just deleted is gone at once.
	overlay := writeback.NewOverlay("pods", index, writeback.Options{})
	overlay.RecordDelete("ns", "a-1", brokerPodOf(a, 1).UID)
	got, err = clusterPods(overlay, a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ns/a-0"}; !slices.Equal(podNames(got), want) {
		t.Errorf("pods of ns/a after deleting a-1: %v, want %v", podNames(got), want)
	}
}

// BenchmarkClusterPods compares, side by side, finding one cluster's pods among those of many
// clusters in one namespace by matching the selector against every pod of the namespace (a
// lister's List) and through the podsByCluster index.
func BenchmarkClusterPods(b *testing.B) {
	for _, clusters := range []int{100, 1000} {
		var pods []*corev1.Pod
		for c := range clusters {
			bc := clusterNamed("ns", fmt.Sprintf("bc-%04d", c))
			for o := range 3 {
				pods = append(pods, brokerPodOf(bc, o))
			}
		}
		index := podIndexer(b, pods...)
		target := clusterNamed("ns", fmt.Sprintf("bc-%04d", clusters/2))
		b.Run(fmt.Sprintf("clusters=%d/selector", clusters), func(b *testing.B) {
			lister := corelisters.NewPodLister(index)
			selector := labels.SelectorFromSet(selectorLabels(target))
			for b.Loop() {
				if got, _ := lister.Pods("ns").List(selector); len(got) != 3 {
					b.Fatalf("%d pods", len(got))
				}
			}
		})
		b.Run(fmt.Sprintf("clusters=%d/index", clusters), func(b *testing.B) {
			for b.Loop() {
				if got, _ := clusterPods(index, target); len(got) != 3 {
					b.Fatalf("%d pods", len(got))
				}
			}
		})
	}
}
