package objects

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
		UID: types.UID(fmt.Sprintf("%s-%s-%d", bc.Namespace, bc.Name, ordinal)), Labels: SelectorLabels(bc),
	}}
}

func clusterIndexer(t testing.TB, objs ...metav1.Object) cache.Indexer {
	t.Helper()
	index := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, ByCluster: clusterIndexKeys,
	})
	for _, o := range objs {
		if err := index.Add(o); err != nil {
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
	index := clusterIndexer(t, brokerPodOf(a, 0), brokerPodOf(a, 1), brokerPodOf(b, 0), brokerPodOf(otherA, 0), stray)

	got, err := ClusterPods(index, a)
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
	got, err = ClusterPods(overlay, a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ns/a-0"}; !slices.Equal(podNames(got), want) {
		t.Errorf("pods of ns/a after deleting a-1: %v, want %v", podNames(got), want)
	}
}

func TestClusterServicesFindsOnlyTheClustersOwnServices(t *testing.T) {
	a, b := clusterNamed("ns", "a"), clusterNamed("ns", "b")
	service := func(bc *v1alpha1.BrokerCluster, name string, listener string) *corev1.Service {
		meta := OwnedMeta(bc)
		meta.Name = name
		if listener != "" {
			meta.Labels[LabelListener] = listener
		}
		return &corev1.Service{ObjectMeta: meta}
	}
	index := clusterIndexer(t, service(a, "a", ""), service(a, "a-0-external", "external"),
		service(a, "a-1-external", "external"), service(b, "b-0-external", "external"))

	got, err := ClusterServices(index, a, labels.Set{LabelListener: "external"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if want := []string{"a-0-external", "a-1-external"}; !slices.Equal(names, want) {
		t.Errorf("external Services of ns/a: %v, want %v", names, want)
	}
	// A pod indexed under the same cluster is not a Service: asking for Services must say so
	// rather than drop it silently, since it means the index was put on the wrong informer.
	if _, err := ClusterServices(clusterIndexer(t, brokerPodOf(a, 0)), a, labels.Set{}); err == nil {
		t.Error("clusterServices over an index holding a pod: no error")
	}
}

// BenchmarkClusterPods compares, side by side, finding one cluster's pods among those of many
// clusters in one namespace by matching the selector against every pod of the namespace (a
// lister's List) and through the podsByCluster index.
func BenchmarkClusterPods(b *testing.B) {
	for _, clusters := range []int{100, 1000} {
		var pods []metav1.Object
		for c := range clusters {
			bc := clusterNamed("ns", fmt.Sprintf("bc-%04d", c))
			for o := range 3 {
				pods = append(pods, brokerPodOf(bc, o))
			}
		}
		index := clusterIndexer(b, pods...)
		target := clusterNamed("ns", fmt.Sprintf("bc-%04d", clusters/2))
		b.Run(fmt.Sprintf("clusters=%d/selector", clusters), func(b *testing.B) {
			lister := corelisters.NewPodLister(index)
			selector := labels.SelectorFromSet(SelectorLabels(target))
			for b.Loop() {
				if got, _ := lister.Pods("ns").List(selector); len(got) != 3 {
					b.Fatalf("%d pods", len(got))
				}
			}
		})
		b.Run(fmt.Sprintf("clusters=%d/index", clusters), func(b *testing.B) {
			for b.Loop() {
				if got, _ := ClusterPods(index, target); len(got) != 3 {
					b.Fatalf("%d pods", len(got))
				}
			}
		})
	}
}
