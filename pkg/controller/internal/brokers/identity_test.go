package brokers

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
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
		p.Annotations = map[string]string{brokerpod.AnnotationNodeID: nodeID}
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
	view := NewView(testName, loopbackMembers(10, 11, 12))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, "11"), 2: testPod(2, false, "")}
	ids, err := IdentifyPods(context.Background(), nodeConfigs{}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	v := VictimOf(2, view)
	if v.IDKnown || v.Status != step.MemberUnidentified {
		t.Fatalf("victim %+v: a pod whose broker cannot be named must be unidentified", v)
	}
	o := step.Observation{Desired: 2, Current: 3, Victim: v, AdminCheck: true}
	if s := step.Decide(o); s.Kind != step.WaitForBrokerID {
		t.Errorf("decided %s for an unidentified broker, want %s: unknown is not absent", s.Kind, step.WaitForBrokerID)
	}
}

func TestNodeConfigNamesTheBrokerWhateverItAdvertises(t *testing.T) {
	view := NewView(testName, loopbackMembers(10, 11, 12))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, ""), 2: testPod(2, true, "")}
	ids, err := IdentifyPods(context.Background(), nodeConfigs{ids: map[int]int{1: 11, 2: 12}}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	if id := ids[1]; !id.Known || id.ID != 11 || id.Source != "node_config" {
		t.Errorf("pod 1: %+v, want 11 from node_config", id)
	}
	v := VictimOf(2, view)
	if !v.IDKnown || v.ID != 12 || v.Status != step.MemberActive {
		t.Fatalf("victim %+v, want broker 12, active", v)
	}
	if s := step.Decide(step.Observation{Desired: 2, Current: 3, Victim: v, AdminCheck: true, Health: step.Health{Known: true}}); s.Kind != step.StartDecommission || *s.Broker != 12 {
		t.Errorf("decided %s on %v, want %s of 12", s.Kind, s.Broker, step.StartDecommission)
	}
}

func TestKnownBrokerThatLeftIsSkipped(t *testing.T) {
	view := NewView(testName, loopbackMembers(10, 11))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, "11"), 2: testPod(2, true, "")}
	ids, err := IdentifyPods(context.Background(), nodeConfigs{ids: map[int]int{2: 12}}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	v := VictimOf(2, view)
	if !v.IDKnown || v.ID != 12 || v.Status != step.MemberAbsent {
		t.Fatalf("victim %+v, want broker 12, absent", v)
	}
	if s := step.Decide(step.Observation{Desired: 2, Current: 3, Victim: v, AdminCheck: true}); s.Kind != step.SkipAbsentBroker {
		t.Errorf("decided %s, want %s: Redpanda says broker 12 is gone", s.Kind, step.SkipAbsentBroker)
	}
}

func TestPodWithNoBrokerWhenEveryMemberRunsElsewhere(t *testing.T) {
	// A pod added by a scale-up that never started: every member is another pod's broker.
	view := NewView(testName, loopbackMembers(10, 11))
	pods := map[int]*corev1.Pod{0: testPod(0, true, "10"), 1: testPod(1, true, "11"), 2: testPod(2, false, "")}
	ids, err := IdentifyPods(context.Background(), nodeConfigs{}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	view.identities = ids
	if v := VictimOf(2, view); v.IDKnown || v.Status != step.MemberAbsent {
		t.Errorf("victim %+v, want absent: no member is unaccounted for", v)
	}
}

func TestAddressFallbackOnlyWhenNodeConfigCannotAnswer(t *testing.T) {
	// The list's address says broker 12 runs pod 2, but pod 2's own node_config says 15 (it
	// rejoined with a new ID): node_config wins.
	members := []admin.Broker{{NodeID: 12, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: testName + "-2." + testName + ".team-a.svc.cluster.local"},
		{NodeID: 15, MembershipStatus: admin.MembershipActive, InternalRPCAddress: "127.0.0.1"}}
	view := NewView(testName, members)
	pods := map[int]*corev1.Pod{2: testPod(2, true, "")}
	ids, err := IdentifyPods(context.Background(), nodeConfigs{ids: map[int]int{2: 15}}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	if id := ids[2]; id.ID != 15 || id.Source != "node_config" {
		t.Errorf("pod 2: %+v, want 15 from node_config", id)
	}
	ids, err = IdentifyPods(context.Background(), nodeConfigs{}, pods, view, 2)
	if err != nil {
		t.Fatal(err)
	}
	if id := ids[2]; id.ID != 12 || id.Source != "address" {
		t.Errorf("pod 2 with node_config down: %+v, want 12 from the address", id)
	}
}

// Two members on one address: a broker lost with its volume (active, down) and the new broker
// its pod made again runs (active, alive). The address names the alive one; and a pod that is
// there is never taken for a member on its address that is down, which would record the lost
// broker's ID on the new pod and hide it from the ghost check.
func TestAddressFallbackNamesTheAliveMember(t *testing.T) {
	address := testName + "-2." + testName + ".team-a.svc.cluster.local"
	lost := admin.Broker{NodeID: 12, MembershipStatus: admin.MembershipActive, InternalRPCAddress: address}
	back := admin.Broker{NodeID: 15, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: address}
	pods := map[int]*corev1.Pod{2: testPod(2, true, "")}
	for _, order := range [][]admin.Broker{{lost, back}, {back, lost}} {
		ids, err := IdentifyPods(context.Background(), nodeConfigs{}, pods, NewView(testName, order), 2)
		if err != nil {
			t.Fatal(err)
		}
		if id := ids[2]; id.ID != 15 {
			t.Errorf("members %v: pod 2 is %+v, want the alive broker 15", order, id)
		}
	}
	ids, err := IdentifyPods(context.Background(), nodeConfigs{}, pods, NewView(testName, []admin.Broker{lost}), 2)
	if err != nil {
		t.Fatal(err)
	}
	if id := ids[2]; id.Known {
		t.Errorf("pod 2, whose broker has not joined yet: %+v, want unknown, not the lost broker", id)
	}
}
