package objects

import (
	"maps"
	"slices"
	"strings"
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
		{DataClaimName(bc, 1), "datadir-" + testName + "-1"},
		{DataClaimName(focusedOn(bc, "blue"), 1), "datadir-" + testName + "-blue-1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
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

func configContainerOf(t *testing.T, template corev1.PodTemplateSpec) corev1.Container {
	t.Helper()
	if len(template.Spec.InitContainers) != 1 {
		t.Fatalf("want one init container, got %d", len(template.Spec.InitContainers))
	}
	return template.Spec.InitContainers[0]
}

func envValue(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func TestPoolStatefulSetIsThePoolsOwn(t *testing.T) {
	bc := withBluePool(newBrokerCluster(3))
	sts, ok := NewPoolStatefulSet(bc, "blue", 2, testDomain)
	if !ok {
		t.Fatal("NewPoolStatefulSet(blue, testDomain) found no pool")
	}
	if sts.Name != testName+"-blue" || sts.Spec.ServiceName != testName+"-blue" || *sts.Spec.Replicas != 2 {
		t.Errorf("StatefulSet %s, service %s, replicas %d", sts.Name, sts.Spec.ServiceName, *sts.Spec.Replicas)
	}
	for what, l := range map[string]map[string]string{
		"selector": sts.Spec.Selector.MatchLabels, "pod labels": sts.Spec.Template.Labels,
		"StatefulSet labels": sts.Labels, "claim labels": sts.Spec.VolumeClaimTemplates[0].Labels,
	} {
		if l[v1alpha1.LabelPool] != "blue" || l[LabelInstance] != testName {
			t.Errorf("%s = %v, want the cluster's labels and %s=blue", what, l, v1alpha1.LabelPool)
		}
	}
	if got := sts.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage]; got.String() != "50Gi" {
		t.Errorf("claim size %s, want the pool's 50Gi", got.String())
	}
	pod := sts.Spec.Template
	if pod.Spec.NodeSelector["pool"] != "blue" || pod.Annotations["team"] != "blue" {
		t.Errorf("pod template takes the pool's node selector and annotations: %v %v", pod.Spec.NodeSelector, pod.Annotations)
	}
	if len(sts.OwnerReferences) != 1 || sts.OwnerReferences[0].Name != bc.Name {
		t.Errorf("owner references %v, want the BrokerCluster", sts.OwnerReferences)
	}
	if sts.Annotations[AnnotationSeedsFrom] != SeedsFromConfigMap || sts.Annotations[AnnotationSeeds] != "" {
		t.Errorf("annotations %v: a pool's seeds come from the ConfigMap", sts.Annotations)
	}
	config := configContainerOf(t, pod)
	node := envValue(config, nodeConfigVar)
	if !strings.Contains(node, "$(POD_NAME)."+testName+"-blue."+testNamespace+".svc.cluster.local") {
		t.Errorf("node config does not advertise the pool's stable names:\n%s", node)
	}
	if !strings.Contains(node, "seed_servers: []") {
		t.Errorf("node config names seeds in the template:\n%s", node)
	}
	if script := config.Command[len(config.Command)-1]; !strings.Contains(script, "set redpanda.seed_servers") || !strings.Contains(script, seedsDir+"/"+SeedsKey) {
		t.Errorf("config script does not take the seeds from the ConfigMap: %s", script)
	}
	var mounted bool
	for _, v := range pod.Spec.Volumes {
		mounted = mounted || (v.ConfigMap != nil && v.ConfigMap.Name == SeedsConfigMapName(bc) && v.ConfigMap.Optional == nil)
	}
	if !mounted {
		t.Errorf("the pod does not mount ConfigMap %s, required", SeedsConfigMapName(bc))
	}
	if _, ok := NewPoolStatefulSet(bc, "green", 1, testDomain); ok {
		t.Error("NewPoolStatefulSet(green, testDomain) made a StatefulSet for a pool the spec does not name")
	}
}

// Adding a pool to a cluster changes nothing of its default pool: upgrading the operator or
// adding a pool restarts none of its pods.
func TestAPoolLeavesTheDefaultPoolsObjectsAlone(t *testing.T) {
	plain := newBrokerCluster(3)
	before := NewStatefulSet(plain, 3, 3, testDomain)
	after := NewStatefulSet(withBluePool(newBrokerCluster(3)), 3, 3, testDomain)
	if before.Annotations[AnnotationSpecHash] != after.Annotations[AnnotationSpecHash] ||
		before.Spec.Template.Annotations[AnnotationTemplateHash] != after.Spec.Template.Annotations[AnnotationTemplateHash] {
		t.Error("adding a pool changed the default pool's StatefulSet or pod template")
	}
	if _, ok := before.Spec.Selector.MatchLabels[v1alpha1.LabelPool]; ok {
		t.Error("the default pool's selector carries a pool label; a StatefulSet's selector cannot change")
	}
	if NewPoolService(plain, v1alpha1.DefaultPoolName).Annotations[AnnotationSpecHash] != NewService(plain).Annotations[AnnotationSpecHash] {
		t.Error("the default pool's Service is not the cluster's Service")
	}
	blue := NewPoolService(withBluePool(newBrokerCluster(3)), "blue")
	if blue.Name != testName+"-blue" || blue.Spec.Selector[v1alpha1.LabelPool] != "blue" || blue.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("pool Service %s selects %v", blue.Name, blue.Spec.Selector)
	}
}

func TestSeedsConfigMap(t *testing.T) {
	bc := newBrokerCluster(3)
	hosts := FoundingHosts(bc, testName+"-blue", 2, testDomain)
	want := []string{"redpanda-blue-0.redpanda-blue.team-a.svc.cluster.local", "redpanda-blue-1.redpanda-blue.team-a.svc.cluster.local"}
	if !slices.Equal(hosts, want) {
		t.Fatalf("FoundingHosts = %v, want %v", hosts, want)
	}
	cm, err := NewSeedsConfigMap(bc, hosts)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Name != testName+"-seeds" || !strings.Contains(cm.Data[SeedsKey], `"port":33145`) {
		t.Errorf("ConfigMap %s: %v", cm.Name, cm.Data)
	}
	if got, ok := SeedsOf(cm); !ok || !slices.Equal(got, want) {
		t.Errorf("SeedsOf = %v, %v; want %v", got, ok, want)
	}
	if _, err := NewSeedsConfigMap(bc, nil); err == nil {
		t.Error("a seeds ConfigMap naming no host was made; Redpanda needs a seed")
	}
	if _, ok := SeedsOf(&corev1.ConfigMap{Data: map[string]string{SeedsKey: "[]"}}); ok {
		t.Error("SeedsOf read an empty list as seeds")
	}
}

// focusedOn is bc marked as the focus view of pool, as internal/brokers FocusView marks it.
func focusedOn(bc *v1alpha1.BrokerCluster, pool string) *v1alpha1.BrokerCluster {
	out := bc.DeepCopy()
	out.Annotations = map[string]string{AnnotationFocusPool: pool}
	return out
}
