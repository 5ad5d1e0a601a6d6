package controller

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// externalServices maps ordinal to node port of the cluster's external Services as the
// apiserver holds them.
func (h *harness) externalServices() map[int]int32 {
	h.t.Helper()
	list, err := h.kube.CoreV1().Services(testNamespace).List(h.ctx, metav1.ListOptions{LabelSelector: LabelListener + "=external"})
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[int]int32{}
	for _, svc := range list.Items {
		var ordinal int
		if _, err := fmt.Sscanf(svc.Labels[objects.LabelOrdinal], "%d", &ordinal); err != nil {
			h.t.Fatalf("Service %s: ordinal label %q", svc.Name, svc.Labels[objects.LabelOrdinal])
		}
		if want := fmt.Sprintf("%s-%d", testName, ordinal); svc.Spec.Selector[brokerconfig.PodNameLabel] != want || len(svc.Spec.Selector) != 1 {
			h.t.Errorf("Service %s selects %v, want pod %s and no other", svc.Name, svc.Spec.Selector, want)
		}
		if ref := metav1.GetControllerOf(&svc); ref == nil || ref.Kind != "BrokerCluster" || ref.Name != testName {
			h.t.Errorf("Service %s controlled by %+v, want the BrokerCluster", svc.Name, ref)
		}
		out[ordinal] = svc.Spec.Ports[0].NodePort
	}
	return out
}

func nodePortCluster(replicas int32) *v1alpha1.BrokerCluster {
	bc := newBrokerCluster(replicas)
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{
		Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000}}}
	return bc
}

// Each broker gets its own NodePort Service and advertises its node's IP with its own node port.
func TestEachBrokerAdvertisesItsOwnNodePort(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpCluster(nodePortCluster(3))
	if got, want := h.externalServices(), map[int]int32{0: 31000, 1: 31001, 2: 31002}; !maps.Equal(got, want) {
		t.Fatalf("external Services %v, want %v", got, want)
	}
	for _, p := range h.pods() {
		ordinal, _ := brokerpod.Ordinal(&p, testName)
		want := fmt.Sprintf("%s:%d", playNodeIP(ordinal), 31000+ordinal)
		if got := p.Annotations[AnnotationExternalAddress]; got != want {
			t.Errorf("pod %s advertises %q, want %s (its node's IP, its own node port)", p.Name, got, want)
		}
	}

	// A new base port moves every Service; the rollout that follows restarts each broker onto it.
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Kafka.External.NodePort.BasePort = 32000 })
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if got, want := h.externalServices(), map[int]int32{0: 32000, 1: 32001, 2: 32002}; !maps.Equal(got, want) {
		t.Errorf("external Services %v after the base port changed, want %v", got, want)
	}
	if st := h.stored().Status; st.UpdatedReplicas != 0 {
		t.Errorf("updatedReplicas %d after the base port changed, want 0: every pod's template is outdated", st.UpdatedReplicas)
	}
}

// A scale-up makes the new broker's Service with the StatefulSet's growth; a scale-down
// deletes the Service of the broker that goes only once its decommission has finished.
func TestExternalServicesFollowTheBrokers(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), drainTime: time.Hour})
	h.bringUpCluster(nodePortCluster(2))

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 3 })
	var createdBeforeSts bool
	h.onReconcileActions = func(actions []k8stesting.Action) {
		svc, sts := -1, -1
		for i, a := range actions {
			switch {
			case a.GetVerb() == "create" && a.GetResource().Resource == "services":
				svc = i
			case a.GetVerb() == "update" && a.GetResource().Resource == "statefulsets" && sts < 0:
				sts = i
			}
		}
		if svc >= 0 && sts >= 0 {
			createdBeforeSts = svc < sts
		}
	}
	h.settle(5)
	h.onReconcileActions = nil
	if !createdBeforeSts {
		t.Error("the new broker's Service was not created before the StatefulSet grew")
	}
	if got := h.externalServices(); len(got) != 3 || got[2] != 31002 {
		t.Fatalf("external Services %v after the scale-up, want ordinal 2 on 31002", got)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 3 { // the decommission starts and drains
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
		h.simClock.Advance(10 * time.Minute)
		if st := h.stored().Status; st.DecommissioningBroker == nil {
			t.Fatalf("status %+v, want the broker of ordinal 2 decommissioning", st)
		}
		if _, ok := h.externalServices()[2]; !ok {
			t.Fatal("the Service of a broker still decommissioning was deleted")
		}
	}
	h.simClock.Advance(time.Hour) // the drain ends
	h.settle(5)
	if got := h.externalServices(); len(got) != 2 || got[2] != 0 {
		t.Fatalf("external Services %v after the broker left, want ordinals 0 and 1", got)
	}
}

// Removing the external listener removes every broker's Service; a Service of that name the
// BrokerCluster does not control is left alone.
func TestExternalServicesGoWithTheListener(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpCluster(nodePortCluster(2))
	stranger := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: testNamespace,
		Labels: map[string]string{LabelManagedBy: ManagedByValue, LabelInstance: testName, LabelListener: "external", objects.LabelOrdinal: "5"}}}
	if _, err := h.kube.CoreV1().Services(testNamespace).Create(h.ctx, stranger, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Kafka = nil })
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	list, err := h.kube.CoreV1().Services(testNamespace).List(h.ctx, metav1.ListOptions{LabelSelector: LabelListener + "=external"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "other" {
		t.Errorf("external Services %d (%v), want only the one the cluster does not control", len(list.Items), list.Items)
	}
}

// A LoadBalancer broker advertises its own load balancer's address once it has one.
func TestLoadBalancerAddressIsRecordedWhenKnown(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	bc := newBrokerCluster(1)
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer}}
	h.bringUpCluster(bc)
	if a := h.pods()[0].Annotations[AnnotationExternalAddress]; a != "" {
		t.Fatalf("address %q recorded before the load balancer has one", a)
	}
	services := h.kube.CoreV1().Services(testNamespace)
	svc, err := services.Get(h.ctx, brokerconfig.ExternalServiceName(testName, 0), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
	if _, err := services.UpdateStatus(h.ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncKubeInformers()
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if a := h.pods()[0].Annotations[AnnotationExternalAddress]; a != "203.0.113.7:9094" {
		t.Errorf("address %q, want the load balancer's with the listener port", a)
	}
}

// Each broker's rack is its node's zone; a node without the label leaves the broker waiting
// and says so.
func TestRackComesFromTheNodesZone(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	for i, zone := range []string{"zone-a", "zone-b", ""} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: playNodeName(i), Labels: map[string]string{}}}
		if zone != "" {
			node.Labels[brokerconfig.DefaultRackLabel] = zone
		}
		if err := h.kubeTrack.Add(node); err != nil {
			t.Fatal(err)
		}
	}
	bc := newBrokerCluster(3)
	bc.Spec.RackAwareness = &v1alpha1.RackAwarenessSpec{}
	h.bringUpCluster(bc)
	racks := map[string]string{}
	for _, p := range h.pods() {
		racks[p.Name] = p.Annotations[AnnotationRack]
	}
	want := map[string]string{testName + "-0": "zone-a", testName + "-1": "zone-b", testName + "-2": ""}
	if !maps.Equal(racks, want) {
		t.Errorf("racks %v, want %v", racks, want)
	}
	if !slices.ContainsFunc(h.events(), func(e string) bool { return strings.Contains(e, "RackUnknown") && strings.Contains(e, testName+"-2") }) {
		t.Error("no RackUnknown event for the pod on a node without a zone")
	}
}
