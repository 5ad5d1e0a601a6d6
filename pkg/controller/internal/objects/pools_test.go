package objects

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func withBluePool(bc *v1alpha1.BrokerCluster) *v1alpha1.BrokerCluster {
	blue := v1alpha1.BrokerPool{
		Name: "blue", Replicas: 3,
		NodeSelector:   map[string]string{"pool": "blue"},
		PodAnnotations: map[string]string{"team": "blue"},
	}
	blue.Storage.Size = resource.MustParse("50Gi")
	bc.Spec.Pools = append(bc.Spec.Pools, blue)
	return bc
}

func TestPoolNamesKeepTheDefaultPoolsNames(t *testing.T) {
	bc := withBluePool(newBrokerCluster(3))
	for _, tc := range []struct{ got, want string }{
		{PoolSetName(bc, v1alpha1.DefaultPoolName), testName},
		{PoolSetName(bc, ""), testName},
		{PoolSetName(bc, "blue"), testName + "-blue"},
		{PoolPodName(bc, v1alpha1.DefaultPoolName, 2), testName + "-2"},
		{PoolPodName(bc, "blue", 0), testName + "-blue-0"},
		{PoolClaimName(bc, v1alpha1.DefaultPoolName, 1), DataClaimName(bc, 1)},
		{PoolClaimName(bc, "blue", 1), "datadir-" + testName + "-blue-1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if got, want := PoolNames(bc), []string{v1alpha1.DefaultPoolName, "blue"}; !slices.Equal(got, want) {
		t.Errorf("PoolNames = %v, want %v", got, want)
	}
}

// A pool's pods share the cluster's prefix: blue-0 and the default pool's 0 are two pods, never
// one (redpanda-operator PR 830 took them for one).
func TestPoolPodsKnowAPodByPoolAndOrdinal(t *testing.T) {
	bc := withBluePool(newBrokerCluster(3))
	pod := func(name string) *corev1.Pod { return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	pods := []*corev1.Pod{pod("redpanda-0"), pod("redpanda-1"), pod("redpanda-blue-0"), pod("redpanda-blue-2"), pod("redpanda-blue-x"), pod("redpanda-01")}

	byDefault := PoolPods(bc, v1alpha1.DefaultPoolName, pods)
	if got := slices.Sorted(maps.Keys(byDefault)); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("default pool ordinals = %v, want [0 1]", got)
	}
	byBlue := PoolPods(bc, "blue", pods)
	if got := slices.Sorted(maps.Keys(byBlue)); !slices.Equal(got, []int{0, 2}) {
		t.Errorf("blue pool ordinals = %v, want [0 2]", got)
	}
	if byBlue[0].Name != "redpanda-blue-0" || byDefault[0].Name != "redpanda-0" {
		t.Errorf("ordinal 0 is %s in blue and %s in default", byBlue[0].Name, byDefault[0].Name)
	}
}

func TestPoolOfPod(t *testing.T) {
	if got := PoolOfPod(map[string]string{v1alpha1.LabelPool: "blue"}); got != "blue" {
		t.Errorf("PoolOfPod(labelled blue) = %q", got)
	}
	if got := PoolOfPod(map[string]string{LabelInstance: testName}); got != v1alpha1.DefaultPoolName {
		t.Errorf("PoolOfPod(no pool label) = %q, want the default pool", got)
	}
}

func TestWithPoolPutsThePoolsFieldsInTheDefaultPoolsPlace(t *testing.T) {
	bc := withBluePool(newBrokerCluster(3))
	bc.Spec.NodeSelector = map[string]string{"pool": "old"}
	if got, ok := WithPool(bc, v1alpha1.DefaultPoolName); !ok || got != bc {
		t.Fatalf("WithPool(default) must be bc itself")
	}
	blue, ok := WithPool(bc, "blue")
	if !ok {
		t.Fatal("WithPool(blue) found no pool")
	}
	if blue.Spec.Replicas != 3 || blue.Spec.Storage.Size.String() != "50Gi" || blue.Spec.NodeSelector["pool"] != "blue" ||
		blue.Spec.PodAnnotations["team"] != "blue" || blue.Spec.Pools != nil {
		t.Errorf("WithPool(blue) spec = %+v", blue.Spec)
	}
	if blue.Name != bc.Name || blue.UID != bc.UID || blue.Spec.Image != bc.Spec.Image {
		t.Errorf("WithPool(blue) must keep the cluster's identity and cluster-wide fields")
	}
	if bc.Spec.NodeSelector["pool"] != "old" || bc.Spec.Storage.Size.String() != "10Gi" || len(bc.Spec.Pools) != 1 {
		t.Errorf("WithPool changed the cluster it was given: %+v", bc.Spec)
	}
	if _, ok := WithPool(bc, "green"); ok {
		t.Error("WithPool(green) found a pool the spec does not name")
	}
}
