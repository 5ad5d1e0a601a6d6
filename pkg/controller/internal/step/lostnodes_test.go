package step

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

var lostAt = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// lostObservation is a steady cluster of 3 whose broker 102 (pod redpanda-2) is on a node that
// is gone, its pod stuck, with the recovery on and due.
func lostObservation() Observation {
	b := LostBroker{Ordinal: 2, Pod: "redpanda-2", PodUID: "u2", Claim: "datadir-redpanda-2", ClaimUID: "c2", Volume: "pv-2",
		Node: "node-c", NodeID: 102, IDKnown: true, Since: lostAt}
	return Observation{Cluster: "redpanda", Desired: 3, Current: 3, Health: Health{Known: true},
		Rollout:   Rollout{Updated: 3, Stuck: []StuckPod{{Ordinal: 2, Pod: "redpanda-2", UID: "u2", Why: "pod redpanda-2 cannot be scheduled"}}},
		LostNodes: LostNodes{Known: true, Recovery: true, Grace: 10 * time.Minute, OthersReady: true, Now: lostAt.Add(10 * time.Minute), Brokers: []LostBroker{b}}}
}

func TestARecoveryIsDueOnlyWhenEveryGateIsOpen(t *testing.T) {
	s := Decide(lostObservation())
	if s.Kind != RecoverLostBroker || s.Lost == nil || s.Lost.Claim != "datadir-redpanda-2" || s.Pod == nil || s.Pod.UID != "u2" || s.Broker == nil || *s.Broker != 102 {
		t.Fatalf("decide = %s %+v, want %s of broker 102, its claim and pod", s.Kind, s, RecoverLostBroker)
	}
	for _, want := range []string{"broker 102", "redpanda-2", "pv-2", "node-c", "Retain", "new node ID", "ghost"} {
		if !strings.Contains(s.Reason, want) {
			t.Errorf("reason %q does not say %q", s.Reason, want)
		}
	}
	if EventType(s.Kind) != corev1.EventTypeWarning || !IsNews(s, &v1alpha1.BrokerClusterStatus{}, &v1alpha1.BrokerClusterStatus{}) {
		t.Error("a recovery is not told as a Warning each time it is taken")
	}
	for name, tc := range map[string]struct {
		change func(*Observation)
		says   string
	}{
		"off":                 {func(o *Observation) { o.LostNodes.Recovery = false }, "set spec.nodeLossRecovery"},
		"within the grace":    {func(o *Observation) { o.LostNodes.Now = lostAt.Add(4 * time.Minute) }, "gone for 10m0s (in 6m0s)"},
		"its ID unknown":      {func(o *Observation) { o.LostNodes.Brokers[0].IDKnown = false }, "broker ID its pod ran is not recorded"},
		"another pod unready": {func(o *Observation) { o.LostNodes.OthersReady = false }, "every other broker's pod is Ready"},
		"the only broker":     {func(o *Observation) { o.Current, o.Desired = 1, 1 }, "only broker of a cluster"},
		"two brokers are lost": {func(o *Observation) {
			o.LostNodes.Brokers = append(o.LostNodes.Brokers, LostBroker{Ordinal: 1, Pod: "redpanda-1"})
		}, "2 brokers are on nodes that are gone"},
	} {
		o := lostObservation()
		tc.change(&o)
		s := Decide(o)
		if s.Kind == RecoverLostBroker {
			t.Errorf("%s: decide = %s", name, s.Kind)
			continue
		}
		if o.Current > 1 && (s.Kind != WaitForStuckPod || !strings.Contains(s.Reason, "node node-c no longer exists") || !strings.Contains(s.Reason, tc.says)) {
			t.Errorf("%s: decide = %s (%q), want %s saying the node is gone and %q", name, s.Kind, s.Reason, WaitForStuckPod, tc.says)
		}
	}
}

// Nothing else is under way when a recovery starts: a restart, a decommission and a scaling
// step each go first.
func TestARecoveryWaitsForAnythingUnderWay(t *testing.T) {
	for name, change := range map[string]func(*Observation){
		"a restart": func(o *Observation) {
			o.Rollout.Restart = &v1alpha1.BrokerRestart{Pod: "redpanda-1", Ordinal: 1, NodeID: 101, Step: v1alpha1.RestartDraining}
		},
		"a decommission": func(o *Observation) { o.Desired, o.Decommissioning, o.Target = 2, ptr.To[int32](102), MemberDraining },
		"a scale-up":     func(o *Observation) { o.Desired = 4 },
	} {
		o := lostObservation()
		change(&o)
		if s := Decide(o); s.Kind == RecoverLostBroker {
			t.Errorf("with %s under way: decide = %s", name, s.Kind)
		}
	}
}

func TestTheRecoveryRowIsIrreversibleAndReadsItsFactsAfresh(t *testing.T) {
	row := Rows[RecoverLostBroker]
	if row.Irreversible != IrreversibleCall || row.Call != CallRecoverLostBroker || !row.Polls {
		t.Fatalf("row %+v, want an irreversible call that polls", row)
	}
	for _, f := range []Fact{FactNodeGone, FactOthersUp, FactNoOtherDrain} {
		found := false
		for _, g := range row.Facts {
			found = found || g == f
		}
		if !found {
			t.Errorf("the row does not read %q afresh", f)
		}
	}
	if WaitFor(FactNodeGone) != WaitForHealthyCluster {
		t.Errorf("a node that is back waits as %s", WaitFor(FactNodeGone))
	}
}

// The grace period is counted from the first time the node was seen gone, kept in status across
// reconciles and operator restarts; another volume or node starts it again.
func TestTheGraceCountsFromTheFirstSight(t *testing.T) {
	first := metav1.NewTime(lostAt)
	recorded := []v1alpha1.BrokerOnLostNode{{Pod: "redpanda-2", Claim: "datadir-redpanda-2", Volume: "pv-2", Node: "node-c", NodeID: ptr.To[int32](102), Since: first}}
	now := lostAt.Add(time.Hour)
	found := []LostBroker{{Pod: "redpanda-2", Volume: "pv-2", Node: "node-c"}, {Pod: "redpanda-1", Volume: "pv-1", Node: "node-b"}}
	SeenSince(recorded, found, now)
	if !found[0].Since.Equal(lostAt) || !found[0].IDKnown || found[0].NodeID != 102 {
		t.Errorf("recorded broker: since %v, ID %d (%v); want %v and the recorded ID 102", found[0].Since, found[0].NodeID, found[0].IDKnown, lostAt)
	}
	if !found[1].Since.Equal(now) || found[1].IDKnown {
		t.Errorf("new broker: since %v, ID known %v; want now and unknown", found[1].Since, found[1].IDKnown)
	}
	again := []LostBroker{{Pod: "redpanda-2", Volume: "pv-9", Node: "node-c"}}
	SeenSince(recorded, again, now)
	if !again[0].Since.Equal(now) {
		t.Errorf("another volume: since %v, want now", again[0].Since)
	}
	if g, on := NodeLossGrace(&v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{NodeLossRecovery: &v1alpha1.NodeLossRecoverySpec{}}}); !on || g != DefaultNodeLossGrace {
		t.Errorf("NodeLossGrace of an empty spec = %v, %v; want the default, on", g, on)
	}
	if _, on := NodeLossGrace(&v1alpha1.BrokerCluster{}); on {
		t.Error("the recovery is on by default")
	}
}

// NodeLost appears with the first lost broker, naming the pod, the claim, the volume and the
// node; it turns False once none is lost, and a cluster that never lost one has no such
// condition. Each broker newly found lost gets one Warning event.
func TestTheNodeLostConditionAndEvents(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "redpanda"}, Spec: v1alpha1.BrokerClusterSpec{Replicas: 3}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3}}
	lost := LostStatus(lostObservation().LostNodes.Brokers)
	st := NextStatus(bc, Step{Kind: None}, Write{Current: 3, ReadyReplicas: 3}, lostAt)
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionNodeLost); c != nil {
		t.Fatalf("NodeLost %+v on a cluster that never lost a node", c)
	}
	st = NextStatus(bc, Step{Kind: WaitForStuckPod}, Write{Current: 3, ReadyReplicas: 2, LostNodes: lost, LostNodesKnown: true}, lostAt)
	c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionNodeLost)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != ReasonVolumeNodeGone {
		t.Fatalf("NodeLost %+v, want True %s", c, ReasonVolumeNodeGone)
	}
	for _, want := range []string{"redpanda-2", "datadir-redpanda-2", "pv-2", "node-c"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("NodeLost says %q, not %q", c.Message, want)
		}
	}
	if patch := string(StatusPatch(bc.Status, st, "")); !strings.Contains(patch, `"brokersOnLostNodes":[{`) {
		t.Errorf("status patch %s does not record the lost broker", patch)
	}
	events := Events(Step{Kind: WaitForStuckPod}, &bc.Status, &st)
	if n := countReason(events, EventNodeLost); n != 1 {
		t.Errorf("events %+v, want one %s", events, EventNodeLost)
	}
	if n := countReason(Events(Step{Kind: WaitForStuckPod}, &st, &st), EventNodeLost); n != 0 {
		t.Errorf("a broker still lost is told again")
	}
	bc.Status = st
	unknown := NextStatus(bc, Step{Kind: WaitForStuckPod}, Write{Current: 3, ReadyReplicas: 2}, lostAt)
	if len(unknown.BrokersOnLostNodes) != 1 {
		t.Errorf("a reconcile that could not look kept %+v, want the recorded broker", unknown.BrokersOnLostNodes)
	}
	after := NextStatus(bc, Step{Kind: None}, Write{Current: 3, ReadyReplicas: 3, LostNodesKnown: true}, lostAt)
	if c := meta.FindStatusCondition(after.Conditions, v1alpha1.ConditionNodeLost); len(after.BrokersOnLostNodes) > 0 || c == nil || c.Status != metav1.ConditionFalse || c.Reason != ReasonNoNodeLost {
		t.Errorf("once none is lost: %+v, NodeLost %+v; want none and False %s", after.BrokersOnLostNodes, c, ReasonNoNodeLost)
	}
}

func countReason(events []Event, reason string) int {
	n := 0
	for _, e := range events {
		if e.Reason == reason {
			n++
		}
	}
	return n
}
