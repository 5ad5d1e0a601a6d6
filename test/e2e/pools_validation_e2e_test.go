//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func pool(name string, replicas int32) v1alpha1.BrokerPool {
	p := v1alpha1.BrokerPool{Name: name, Replicas: replicas}
	p.Storage.Size = resource.MustParse("1Gi")
	return p
}

// TestPoolSpecsRejected checks that the real apiserver turns bad pools away with the CRD's own
// messages, on create and on update, and accepts a cluster whose brokers are all in a pool.
func TestPoolSpecsRejected(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	clusters := env.Brokers.BrokersV1alpha1().BrokerClusters(ns)

	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.BrokerCluster)
		want   []string
	}{
		{"two pools of one name", func(bc *v1alpha1.BrokerCluster) {
			bc.Spec.Pools = []v1alpha1.BrokerPool{pool("blue", 3), pool("blue", 1)}
		}, []string{"spec.pools[1]: Duplicate value"}},
		{"a pool named default", func(bc *v1alpha1.BrokerCluster) {
			bc.Spec.Pools = []v1alpha1.BrokerPool{pool("default", 3)}
		}, []string{"a pool cannot be named default"}},
		{"a pool name that is no DNS label starting with a letter", func(bc *v1alpha1.BrokerCluster) {
			bc.Spec.Pools = []v1alpha1.BrokerPool{pool("0", 3)}
		}, []string{"spec.pools[0].name in body should match"}},
		{"no broker in any pool", func(bc *v1alpha1.BrokerCluster) {
			bc.Spec.Replicas, bc.Spec.Pools = 0, []v1alpha1.BrokerPool{pool("blue", 0)}
		}, []string{"a cluster needs at least one broker"}},
		{"a pool with no storage size", func(bc *v1alpha1.BrokerCluster) {
			p := pool("blue", 3)
			p.Storage.Size = resource.MustParse("0")
			bc.Spec.Pools = []v1alpha1.BrokerPool{p}
		}, []string{"storage.size must be a positive quantity"}},
		{"a pool with an external listener", func(bc *v1alpha1.BrokerCluster) {
			bc.Spec.Pools = []v1alpha1.BrokerPool{pool("blue", 3)}
			bc.Spec.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer}}
		}, []string{"spec.kafka.external cannot be used with spec.pools yet"}},
		{"a pool whose StatefulSet name is too long", func(bc *v1alpha1.BrokerCluster) {
			bc.Name = strings.Repeat("c", 30)
			bc.Spec.Pools = []v1alpha1.BrokerPool{pool(strings.Repeat("p", 30), 3)}
		}, []string{"needs a name of at most 52 characters"}},
	} {
		bc := env.BrokerCluster(ns, "pools", 3)
		tc.mutate(bc)
		_, err := clusters.Create(t.Context(), bc, metav1.CreateOptions{})
		for _, want := range tc.want {
			expectInvalid(t, "create with "+tc.name, err, want)
		}
		if len(tc.want) == 0 {
			t.Errorf("case %s names no message", tc.name)
		}
	}

	// A cluster moved to a pool: accepted, and its pool's storage refuses what spec.storage
	// refuses.
	bc := env.BrokerCluster(ns, "moved", 3)
	bc.Spec.Replicas, bc.Spec.Pools = 0, []v1alpha1.BrokerPool{pool("blue", 3)}
	if _, err := clusters.Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a BrokerCluster whose brokers are all in a pool: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.StorageSpec)
		want   string
	}{
		{"a pool's storage shrinking", func(s *v1alpha1.StorageSpec) { s.Size = resource.MustParse("512Mi") }, "storage.size cannot shrink"},
		{"a pool's storage class changing", func(s *v1alpha1.StorageSpec) { s.StorageClassName = ptr.To("fast") }, "storage.storageClassName is immutable"},
	} {
		bc, err := clusters.Get(t.Context(), "moved", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tc.mutate(&bc.Spec.Pools[0].Storage)
		_, err = clusters.Update(t.Context(), bc, metav1.UpdateOptions{})
		expectInvalid(t, "update with "+tc.name, err, tc.want)
	}
	bc, err := clusters.Get(t.Context(), "moved", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bc.Spec.Pools[0].Replicas = 0
	_, err = clusters.Update(t.Context(), bc, metav1.UpdateOptions{})
	expectInvalid(t, "update that leaves no broker", err, "a cluster needs at least one broker")
}
