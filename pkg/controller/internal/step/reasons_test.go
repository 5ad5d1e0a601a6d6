package step

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/wordstest"
)

// storyObservation is a cluster of 5 brokers, pods example-0 to example-4, every field set, so
// that each row's reason has all it could name.
func storyObservation() Observation {
	return Observation{
		Cluster: "example", Desired: 2, Current: 5, Decommissioning: ptr.To[int32](104), Target: MemberDraining,
		Victim: Victim{Ordinal: 4, ID: 104, IDKnown: true, Status: MemberActive}, AdminCheck: true,
		Health: Health{Known: true, Problems: []string{"brokers down: [101]"}},
		Rollout: Rollout{
			Restart:  &v1alpha1.BrokerRestart{Pod: "example-2", Ordinal: 2, NodeID: 102, Step: v1alpha1.RestartDraining, PodUID: "u2"},
			Outdated: 2, Updated: 3, Revision: "r2", NextPod: "example-1", NextPodUID: "u1",
			Next: Victim{Ordinal: 1, ID: 101, IDKnown: true, Status: MemberActive}, OldPodGone: true, NotReadyPod: "example-2",
			Recovery: Recovery{Asked: true, Reclaimed: 40, Wanted: 100, Waited: 31 * time.Minute, Timeout: 30 * time.Minute, Overdue: true},
			NotReady: "image redpanda:v99.9.9 of pod example-2 cannot be pulled (ImagePullBackOff): Back-off pulling image",
			Stuck: []StuckPod{{Ordinal: 2, Pod: "example-2", UID: "u3", Outdated: true,
				Why: "image redpanda:v99.9.9 of pod example-2 cannot be pulled (ImagePullBackOff): Back-off pulling image"}},
		},
		LostNodes: LostNodes{Known: true, Recovery: true, Grace: 10 * time.Minute, OthersReady: true, Now: time.Date(2026, 5, 1, 12, 30, 0, 0, time.UTC),
			Brokers: []LostBroker{{Ordinal: 3, Pod: "example-3", PodUID: "u4", Claim: "datadir-example-3", ClaimUID: "c3", Volume: "pv-3",
				Node: "node-c", NodeID: 103, IDKnown: true, Since: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}}},
	}
}

// Every row of every table gives a reason in words, and names the broker and its pod.
func TestReasonsAreInWords(t *testing.T) {
	o := storyObservation()
	tables := []struct {
		name   string
		rows   []Transition
		reason func(Transition, Observation) string
	}{
		{"scaling", scaleTransitions, scaleReason},
		{"restart", restartTransitions, restartReason},
		{"rollout", rolloutTransitions, rolloutReason},
	}
	for _, table := range tables {
		for _, row := range table.rows {
			if row.Then == None {
				continue
			}
			what := table.name + " " + row.State + ": " + row.When
			wordstest.Check(t, what+" (When)", row.When)
			reason := table.reason(row, o)
			wordstest.Check(t, what, reason)
			if reason == row.When {
				t.Errorf("%s: %s has no sentence of its own, only the When column", what, row.Then)
			}
			if !strings.Contains(reason, "example-") && !strings.Contains(reason, " brokers") && row.Then != WaitForAdminAPI {
				t.Errorf("%s: %q names no pod and no count", what, reason)
			}
		}
	}
}

// Conditions, held-back steps, fact errors and a stalled drain say what they mean in words.
func TestMessagesAreInWords(t *testing.T) {
	o := storyObservation()
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "team-a"}, Spec: v1alpha1.BrokerClusterSpec{Replicas: 2}}
	bc.Status = v1alpha1.BrokerClusterStatus{CurrentReplicas: 5, DecommissioningBroker: ptr.To[int32](104), Restart: o.Rollout.Restart}
	for kind := range Rows {
		s := Step{Kind: kind, Broker: ptr.To[int32](104), Reason: "the reason"}
		var problem AdminProblem
		if kind == WaitForAdminAPI {
			problem = AdminProblem{Reason: ReasonAdminAPIUnavailable, Message: AdminSilent + ": list brokers: admin API unavailable", Waits: true}
		}
		current, decommissioning, lc := Change(bc, s, o, true)
		st := NextStatus(bc, s, Write{Current: current, Decommissioning: decommissioning, ReadyReplicas: 3, Lifecycle: lc, Admin: problem,
			LostNodes: LostStatus(o.LostNodes.Brokers), LostNodesKnown: true}, time.Now())
		for _, c := range st.Conditions {
			wordstest.Check(t, string(kind)+" "+c.Type, c.Message)
		}
		wordstest.Check(t, string(kind)+" held back", Subject(s))
	}
	wordstest.Check(t, "scaling up", scalingCondition("example", Step{}, 2, 4, nil).Message)
	wordstest.Check(t, "recommissioning", scalingCondition("example", Step{}, 3, 3, ptr.To[int32](102)).Message)
	for _, f := range []Fact{FactHealthGate, FactOthersUp, FactPodReady, FactNoOtherDrain, FactBrokerLeft, FactNodeGone} {
		wordstest.Check(t, "fact "+string(f), (&FactError{Fact: f, Why: "broker 101 is down"}).Error())
	}
}

func TestBrokersRemainAgreesWithTheCount(t *testing.T) {
	for n, want := range map[int32]string{0: "0 brokers remain", 1: "1 broker remains", 2: "2 brokers remain"} {
		if got := brokersRemain(n); got != want {
			t.Errorf("brokersRemain(%d) = %q, want %q", n, got, want)
		}
	}
}
