package controller

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// nodeConfigs is an admin.Client whose NodeConfig answers from a map (ordinal to node ID) and
// fails with ErrUnavailable for any other ordinal; it has no other call.
type nodeConfigs struct {
	admin.Client
	ids map[int]int
}

func (n nodeConfigs) NodeConfig(_ context.Context, ordinal int) (admin.NodeConfig, error) {
	if id, ok := n.ids[ordinal]; ok {
		return admin.NodeConfig{NodeID: id}, nil
	}
	return admin.NodeConfig{}, &admin.Error{Op: "node config", Kind: admin.ErrUnavailable}
}

func testPod(ordinal int, ready bool, nodeID string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: testName + "-" + string(rune('0'+ordinal)), Namespace: testNamespace}}
	if ready {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	if nodeID != "" {
		p.Annotations = map[string]string{AnnotationNodeID: nodeID}
	}
	return p
}

// Brokers that advertise 127.0.0.1, as Redpanda does by default: no address names a pod.
func loopbackMembers(ids ...int) []admin.Broker {
	var out []admin.Broker
	for _, id := range ids {
		out = append(out, admin.Broker{NodeID: id, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: "127.0.0.1", InternalRPCPort: 33145})
	}
	return out
}

func TestUnknownBrokerIsNotAbsent(t *testing.T) {
	view := newBrokerView(testName, loopbackMembers(10, 11, 12))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, "11"), 2: testPod(2, false, "")}
	ids, err := identifyPods(context.Background(), nodeConfigs{}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	v := victimOf(2, view)
	if v.IDKnown || v.Status != step.MemberUnidentified {
		t.Fatalf("victim %+v: a pod whose broker cannot be named must be unidentified", v)
	}
	o := step.Observation{Desired: 2, Current: 3, Victim: v, AdminCheck: true}
	if s := step.Decide(o); s.Kind != step.WaitForBrokerID {
		t.Errorf("decided %s for an unidentified broker, want %s: unknown is not absent", s.Kind, step.WaitForBrokerID)
	}
}

func TestNodeConfigNamesTheBrokerWhateverItAdvertises(t *testing.T) {
	view := newBrokerView(testName, loopbackMembers(10, 11, 12))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, ""), 2: testPod(2, true, "")}
	ids, err := identifyPods(context.Background(), nodeConfigs{ids: map[int]int{1: 11, 2: 12}}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	if id := ids[1]; !id.Known || id.ID != 11 || id.Source != "node_config" {
		t.Errorf("pod 1: %+v, want 11 from node_config", id)
	}
	v := victimOf(2, view)
	if !v.IDKnown || v.ID != 12 || v.Status != step.MemberActive {
		t.Fatalf("victim %+v, want broker 12, active", v)
	}
	if s := step.Decide(step.Observation{Desired: 2, Current: 3, Victim: v, AdminCheck: true, Health: step.Health{Known: true}}); s.Kind != step.StartDecommission || *s.Broker != 12 {
		t.Errorf("decided %s on %v, want %s of 12", s.Kind, s.Broker, step.StartDecommission)
	}
}

func TestKnownBrokerThatLeftIsSkipped(t *testing.T) {
	view := newBrokerView(testName, loopbackMembers(10, 11))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, "11"), 2: testPod(2, true, "")}
	ids, err := identifyPods(context.Background(), nodeConfigs{ids: map[int]int{2: 12}}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	v := victimOf(2, view)
	if !v.IDKnown || v.ID != 12 || v.Status != step.MemberAbsent {
		t.Fatalf("victim %+v, want broker 12, absent", v)
	}
	if s := step.Decide(step.Observation{Desired: 2, Current: 3, Victim: v, AdminCheck: true}); s.Kind != step.SkipAbsentBroker {
		t.Errorf("decided %s, want %s: Redpanda says broker 12 is gone", s.Kind, step.SkipAbsentBroker)
	}
}

func TestPodWithNoBrokerWhenEveryMemberRunsElsewhere(t *testing.T) {
	// A pod added by a scale-up that never started: every member is another pod's broker.
	view := newBrokerView(testName, loopbackMembers(10, 11))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, "11"), 2: testPod(2, false, "")}
	ids, err := identifyPods(context.Background(), nodeConfigs{}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	if v := victimOf(2, view); v.IDKnown || v.Status != step.MemberAbsent {
		t.Errorf("victim %+v, want absent: no member is unaccounted for", v)
	}
}

func TestAddressFallbackOnlyWhenNodeConfigCannotAnswer(t *testing.T) {
	// The list's address says broker 12 runs pod 2, but pod 2's own node_config says 15 (it
	// rejoined with a new ID): node_config wins.
	members := []admin.Broker{{NodeID: 12, MembershipStatus: admin.MembershipActive, InternalRPCAddress: testName + "-2." + testName + ".team-a.svc.cluster.local"},
		{NodeID: 15, MembershipStatus: admin.MembershipActive, InternalRPCAddress: "127.0.0.1"}}
	view := newBrokerView(testName, members)
	pods := map[int]*corev1.Pod{2: testPod(2, true, "")}
	ids, err := identifyPods(context.Background(), nodeConfigs{ids: map[int]int{2: 15}}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	if id := ids[2]; id.ID != 15 || id.Source != "node_config" {
		t.Errorf("pod 2: %+v, want 15 from node_config", id)
	}
	ids, err = identifyPods(context.Background(), nodeConfigs{}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	if id := ids[2]; id.ID != 12 || id.Source != "address" {
		t.Errorf("pod 2 with node_config down: %+v, want 12 from the address", id)
	}
}

// End to end through the controller: brokers advertise 127.0.0.1, the next broker to go has no
// recorded ID and its node_config cannot be had. The scale-down waits, Degraded says why, and
// nothing is decommissioned or removed; once the broker answers, it proceeds.
func TestScaleDownWaitsForAnUnidentifiedBroker(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.cluster.SetAdvertiseLoopback(true)
	h.bringUp(3)
	ids := h.nodeIDs()
	pod, err := h.kube.CoreV1().Pods(testNamespace).Get(h.ctx, testName+"-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delete(pod.Annotations, AnnotationNodeID)
	if _, err := h.kube.CoreV1().Pods(testNamespace).Update(h.ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	h.cluster.SetBrokerFault(2, admintest.Fault{Refuse: true})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	for range 3 {
		res, err := h.reconcile()
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter != pollInterval {
			t.Errorf("requeue after %v, want a poll while waiting", res.RequeueAfter)
		}
	}
	st := h.stored().Status
	cond := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonBrokerIDUnknown || !strings.Contains(cond.Message, "unknown is not absent") {
		t.Errorf("Degraded %+v, want %s saying why", cond, ReasonBrokerIDUnknown)
	}
	if st.CurrentReplicas != 3 || len(h.pods()) != 3 || len(h.decommissionCalls()) != 0 {
		t.Fatalf("status %+v, %d pods, decommissions %v: an unidentified broker was skipped", st, len(h.pods()), h.decommissionCalls())
	}

	h.cluster.SetBrokerFault(2, admintest.Fault{})
	h.settle(10)
	if calls := h.decommissionCalls(); len(calls) != 1 || calls[0] != ids[2] {
		t.Errorf("decommission calls %v, want [%d]", calls, ids[2])
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("left before decommission: %v", l)
	}
}
