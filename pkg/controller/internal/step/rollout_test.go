package step

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestDecideRollout(t *testing.T) {
	ok := Health{Known: true}
	sick := Health{Known: true, Problems: []string{"3 under-replicated partitions"}}
	next := Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}
	pending := func(r Rollout) Rollout {
		r.Outdated, r.AllReady, r.Next, r.NextPod, r.NextPodUID = 2, true, next, "redpanda-2", "uid-2"
		return r
	}
	// facts: what a restart under way relies on holds (table.go).
	facts := func(r Rollout) Rollout {
		r.PodReady, r.OthersUp = !r.OldPodGone, true
		return r
	}
	restart := func(st v1alpha1.RestartStep) *v1alpha1.BrokerRestart {
		return &v1alpha1.BrokerRestart{Pod: "redpanda-2", Ordinal: 2, NodeID: 102, Step: st, PodUID: "uid-2"}
	}
	tests := []struct {
		name       string
		o          Observation
		want       Kind
		wantBroker *int32
	}{
		{"every pod up to date", Observation{Desired: 3, Current: 3, Health: ok}, None, nil},
		{"outdated pods, admin API down",
			Observation{Desired: 3, Current: 3, AdminUnavailable: true, Rollout: pending(Rollout{})}, WaitForAdminAPI, nil},
		{"outdated pods, next broker's membership unknown",
			Observation{Desired: 3, Current: 3, Health: ok, Rollout: Rollout{Outdated: 1, AllReady: true, Next: Victim{Ordinal: 2}}}, WaitForAdminAPI, nil},
		{"outdated pods, a pod not ready",
			Observation{Desired: 3, Current: 3, Health: ok, Rollout: func() Rollout { r := pending(Rollout{}); r.AllReady = false; return r }()}, WaitForReadyBrokers, ptr.To[int32](102)},
		{"outdated pods, cluster unhealthy: the health gate waits",
			Observation{Desired: 3, Current: 3, Health: sick, Rollout: pending(Rollout{})}, WaitForHealthyCluster, ptr.To[int32](102)},
		{"outdated pods, unhealthy but the gate overridden",
			Observation{Desired: 3, Current: 3, Health: sick, SkipHealthGate: true, Rollout: pending(Rollout{})}, StartRestart, ptr.To[int32](102)},
		{"outdated pods, broker ID not known",
			Observation{Desired: 3, Current: 3, Health: ok, Rollout: Rollout{Outdated: 1, AllReady: true, Next: Victim{Ordinal: 2, Status: MemberAbsent}}}, WaitForBrokerID, nil},
		{"outdated pods, next broker draining (not an active member)",
			Observation{Desired: 3, Current: 3, Health: ok, Rollout: Rollout{Outdated: 1, AllReady: true, Next: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberDraining}}}, WaitForReadyBrokers, ptr.To[int32](102)},
		{"single broker: restart without maintenance mode",
			Observation{Desired: 1, Current: 1, Health: ok, Rollout: pending(Rollout{})}, RestartSingleBroker, ptr.To[int32](102)},
		{"outdated pods: restart the highest ordinal's broker",
			Observation{Desired: 3, Current: 3, Health: ok, Rollout: pending(Rollout{})}, StartRestart, ptr.To[int32](102)},

		{"draining, admin API down",
			Observation{Desired: 3, Current: 3, AdminUnavailable: true, Rollout: Rollout{Restart: restart(v1alpha1.RestartDraining)}}, WaitForAdminAPI, ptr.To[int32](102)},
		{"draining, maintenance status unknown",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining)})}, WaitForAdminAPI, ptr.To[int32](102)},
		{"draining, maintenance not on (the call was lost): turn it on",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceOff})}, EnableMaintenance, ptr.To[int32](102)},
		{"draining, leadership still moving",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDraining})}, WaitForLeadershipDrain, ptr.To[int32](102)},
		{"draining, drained: restart the pod",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDrained})}, RestartPod, ptr.To[int32](102)},
		{"restarting, old pod still there: delete it (UID precondition)",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting)})}, DeletePod, ptr.To[int32](102)},
		{"restarting, new pod not back",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true})}, WaitForRestart, ptr.To[int32](102)},
		{"restarting, broker back: maintenance off",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true})}, FinishRestart, ptr.To[int32](102)},
		{"restarting, admin API down while waiting for the broker",
			Observation{Desired: 3, Current: 3, AdminUnavailable: true, Rollout: Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true}}, WaitForAdminAPI, ptr.To[int32](102)},

		// A fact a restart relies on stops holding before its pod is deleted.
		{"draining, a broker went down, maintenance not on yet: wait",
			Observation{Desired: 3, Current: 3, Health: sick, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceOff})}, WaitForHealthyCluster, ptr.To[int32](102)},
		{"draining, a broker went down, maintenance on: suspend (maintenance off)",
			Observation{Desired: 3, Current: 3, Health: sick, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDrained})}, SuspendRestart, ptr.To[int32](102)},
		{"draining, its own pod not Ready: suspend",
			Observation{Desired: 3, Current: 3, Health: ok, Rollout: Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDraining, OthersUp: true}}, SuspendRestart, ptr.To[int32](102)},
		{"restarting, old pod still there, another broker down: suspend",
			Observation{Desired: 3, Current: 3, Health: ok, Rollout: Rollout{Restart: restart(v1alpha1.RestartRestarting), PodReady: true}}, SuspendRestart, ptr.To[int32](102)},
		{"restarting, old pod being deleted: the restart under way goes on",
			Observation{Desired: 3, Current: 3, Health: sick, Rollout: Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodDeleting: true}}, WaitForRestart, ptr.To[int32](102)},
		{"draining, health not known: wait for the admin API",
			Observation{Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDrained})}, WaitForAdminAPI, ptr.To[int32](102)},

		// Someone else deleted the pod while its leadership drained: the restart goes on with the
		// pod that replaces it, maintenance mode untouched (no SuspendRestart, no "not Ready").
		{"draining, pod deleted by someone else",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDrained, OldPodGone: true})}, AdoptReplacedPod, ptr.To[int32](102)},
		{"draining, pod being deleted by someone else",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDraining, OldPodDeleting: true, OthersUp: true}}, AdoptReplacedPod, ptr.To[int32](102)},
		{"draining and suspended, pod replaced meanwhile",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceOff, OldPodGone: true})}, AdoptReplacedPod, ptr.To[int32](102)},

		// Recovery before the next broker (post_restart_probe).
		{"back, load not reclaimed yet: wait",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true, Recovery: Recovery{Asked: true, Reclaimed: 40, Wanted: 100}})}, WaitForRecovery, ptr.To[int32](102)},
		{"back, the probe did not answer: wait (fail closed)",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true, Recovery: Recovery{Asked: true, Reclaimed: -1, Wanted: 100, Problem: "timeout"}})}, WaitForRecovery, ptr.To[int32](102)},
		{"back, load reclaimed: finish",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true, Recovery: Recovery{Asked: true, Reclaimed: 90, Wanted: 90}})}, FinishRestart, ptr.To[int32](102)},
		{"back, no probe before Redpanda 25.1: finish",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true, Recovery: Recovery{Asked: true, NoProbe: true, Reclaimed: -1, Wanted: 100}})}, FinishRestart, ptr.To[int32](102)},

		// Pods that cannot come up by themselves.
		{"restarting, the new pod cannot start on the current template: wait, naming it",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Stuck: []StuckPod{{Ordinal: 2, Pod: "redpanda-2", UID: "u-new", Why: "image cannot be pulled"}}})}, WaitForStuckPod, ptr.To[int32](102)},
		{"restarting, the new pod cannot start and the template changed again: replace it",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Stuck: []StuckPod{{Ordinal: 2, Pod: "redpanda-2", UID: "u-new", Why: "image cannot be pulled", Outdated: true}}})}, ReplaceStuckPod, ptr.To[int32](102)},
		{"restarting, another pod stuck: not this restart's to heal",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Stuck: []StuckPod{{Ordinal: 0, Pod: "redpanda-0", Outdated: true}}})}, WaitForRestart, ptr.To[int32](102)},
		{"rollout, an outdated pod cannot start: replaced before the healthy ones",
			Observation{Health: sick, Desired: 3, Current: 3, Rollout: func() Rollout {
				r := pending(Rollout{})
				r.AllReady, r.Stuck = false, []StuckPod{{Ordinal: 0, Pod: "redpanda-0", UID: "u0", Outdated: true, NodeID: 100, IDKnown: true}}
				return r
			}()}, ReplaceStuckPod, ptr.To[int32](100)},
		{"rollout, a pod on the current template cannot start: wait, naming it",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: func() Rollout {
				r := pending(Rollout{})
				r.AllReady, r.Stuck = false, []StuckPod{{Ordinal: 0, Pod: "redpanda-0", UID: "u0"}}
				return r
			}()}, WaitForStuckPod, ptr.To[int32](102)},
		{"steady, a pod cannot be scheduled: wait, naming it",
			Observation{Desired: 3, Current: 3, Rollout: Rollout{Stuck: []StuckPod{{Ordinal: 2, Pod: "redpanda-2", Why: "pod redpanda-2 cannot be scheduled: 0/3 nodes are available"}}}}, WaitForStuckPod, nil},
		{"rollout, a pod merely slow: wait, never replaced",
			Observation{Health: ok, Desired: 3, Current: 3, Rollout: func() Rollout { r := pending(Rollout{}); r.AllReady = false; return r }()}, WaitForReadyBrokers, ptr.To[int32](102)},

		// The order of scaling and rollout.
		{"scale-down requested mid-restart: the restart finishes first",
			Observation{Desired: 2, Current: 3, Health: ok, Victim: next, AdminCheck: true, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: MaintenanceDraining})}, WaitForLeadershipDrain, ptr.To[int32](102)},
		{"scale-up requested mid-restart: the restart finishes first",
			Observation{Health: ok, Desired: 5, Current: 3, Rollout: facts(Rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true})}, FinishRestart, ptr.To[int32](102)},
		{"between two restarts a scale-down goes first",
			Observation{Desired: 2, Current: 3, Health: ok, Victim: next, AdminCheck: true, Rollout: pending(Rollout{})}, StartDecommission, ptr.To[int32](102)},
		{"between two restarts a scale-up goes first",
			Observation{Desired: 5, Current: 3, Health: ok, Rollout: pending(Rollout{})}, ScaleUp, nil},
		{"a decommission under way goes before the rollout",
			Observation{Desired: 2, Current: 3, Health: ok, Decommissioning: ptr.To[int32](102), Target: MemberDraining, AdminCheck: true, Rollout: pending(Rollout{})}, WaitForDrain, ptr.To[int32](102)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.o)
			if got.Kind != tt.want {
				t.Fatalf("decide = %s (%s), want %s", got.Kind, got.Reason, tt.want)
			}
			if ptr.Deref(got.Broker, -1) != ptr.Deref(tt.wantBroker, -1) {
				t.Fatalf("acts on broker %s, want %s", OptionalID(got.Broker), OptionalID(tt.wantBroker))
			}
			if got.Reason == "" {
				t.Fatal("decision without a reason")
			}
		})
	}
}

// A stuck pod is replaced by its own UID, and the wait names the pod and why.
func TestStuckPodsAreNamedAndReplacedByUID(t *testing.T) {
	stuck := StuckPod{Ordinal: 0, Pod: "redpanda-0", UID: "u0", Why: "image redpanda:v9 of pod redpanda-0 cannot be pulled (ImagePullBackOff): not found", Outdated: true}
	o := Observation{Cluster: "redpanda", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Outdated: 2, Stuck: []StuckPod{stuck},
		Next: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}, NextPod: "redpanda-2", NextPodUID: "u2"}}
	s := Decide(o)
	if s.Kind != ReplaceStuckPod || s.Pod == nil || *s.Pod != (PodRef{Name: "redpanda-0", UID: "u0"}) {
		t.Fatalf("decide = %s deleting %+v, want %s of redpanda-0 by its UID", s.Kind, s.Pod, ReplaceStuckPod)
	}
	if !strings.Contains(s.Reason, stuck.Why) {
		t.Errorf("reason %q does not say why the pod cannot start", s.Reason)
	}
	o.Rollout.Stuck[0].Outdated = false
	s = Decide(o)
	st := NextStatus(&v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{Replicas: 3}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3}}, s, Write{Current: 3}, time.Now())
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if s.Kind != WaitForStuckPod || degraded == nil || degraded.Status != metav1.ConditionTrue || degraded.Reason != ReasonBrokerPodCannotStart || !strings.Contains(degraded.Message, stuck.Why) {
		t.Fatalf("decide = %s, Degraded %+v; want %s with Degraded %s naming the pod and why", s.Kind, degraded, WaitForStuckPod, ReasonBrokerPodCannotStart)
	}
	if EventType(s.Kind) != corev1.EventTypeWarning {
		t.Error("a pod that cannot start is not told as a Warning")
	}
}

// A broker pod the scheduler finds no node for is named with the scheduler's words, and the
// wait says what places it: a node, the spec's placement, or fewer brokers.
func TestAnUnschedulablePodSaysWhatPlacesIt(t *testing.T) {
	why := "pod redpanda-3 cannot be scheduled: 0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules."
	o := Observation{Cluster: "redpanda", Desired: 4, Current: 4, Rollout: Rollout{Stuck: []StuckPod{{Ordinal: 3, Pod: "redpanda-3", UID: "u3", Why: why, Unschedulable: true}}}}
	s := Decide(o)
	st := NextStatus(&v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{Replicas: 4}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 4}}, s, Write{Current: 4}, time.Now())
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if s.Kind != WaitForStuckPod || degraded == nil || degraded.Reason != ReasonBrokerPodCannotStart {
		t.Fatalf("decide = %s, Degraded %+v; want %s with Degraded %s", s.Kind, degraded, WaitForStuckPod, ReasonBrokerPodCannotStart)
	}
	for _, want := range []string{why, "add a node", "spec.affinity", "spec.topologySpreadConstraints", "lower spec.replicas"} {
		if !strings.Contains(degraded.Message, want) {
			t.Errorf("Degraded message %q lacks %q", degraded.Message, want)
		}
	}
	if strings.Contains(degraded.Message, "image") {
		t.Errorf("Degraded message %q points at the image of a pod that only lacks a node", degraded.Message)
	}
}

func TestStartRestartRecordsTheBroker(t *testing.T) {
	o := Observation{Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Outdated: 1, AllReady: true,
		Next: Victim{Ordinal: 1, ID: 101, IDKnown: true, Status: MemberActive}, NextPod: "redpanda-1", NextPodUID: "u1"}}
	s := Decide(o)
	want := v1alpha1.BrokerRestart{Pod: "redpanda-1", Ordinal: 1, NodeID: 101, Step: v1alpha1.RestartDraining, PodUID: "u1"}
	if s.Kind != StartRestart || s.Restart == nil || *s.Restart != want {
		t.Fatalf("decide = %s with record %+v, want %s with %+v", s.Kind, s.Restart, StartRestart, want)
	}
	o.Current, o.Desired = 1, 1
	s = Decide(o)
	if s.Kind != RestartSingleBroker || s.Restart == nil || s.Restart.Step != v1alpha1.RestartRestarting {
		t.Fatalf("single broker: decide = %s with record %+v, want %s recording step Restarting", s.Kind, s.Restart, RestartSingleBroker)
	}
	if Decide(Observation{Desired: 3, Current: 3, Health: Health{Known: true, Problems: []string{"brokers down: [100]"}}, Rollout: o.Rollout}).Reason == "" {
		t.Fatal("no reason")
	}
}

func TestHealthGateReasonNamesTheProblem(t *testing.T) {
	o := Observation{Desired: 3, Current: 3, Health: Health{Known: true, Problems: []string{"brokers down: [100]"}},
		Rollout: Rollout{Outdated: 1, AllReady: true, Next: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}}}
	s := Decide(o)
	if s.Kind != WaitForHealthyCluster || !strings.Contains(s.Reason, "brokers down: [100]") {
		t.Fatalf("decide = %s (%q), want %s naming the down broker", s.Kind, s.Reason, WaitForHealthyCluster)
	}
}

// Every row of both rollout tables must be reachable.
func TestRolloutTransitionsAllReachable(t *testing.T) {
	for name, table := range map[string][]Transition{"restart": restartTransitions, "rollout": rolloutTransitions} {
		seen := map[int]bool{}
		for _, current := range []int32{1, 3} {
			for _, outdated := range []int{0, 1} {
				for _, ready := range []bool{false, true} {
					for _, healthy := range []bool{false, true} {
						for _, down := range []bool{false, true} {
							for _, known := range []bool{false, true} {
								for _, vs := range []Membership{MemberUnknown, MemberActive, MemberDraining, MemberAbsent} {
									for _, m := range []Maintenance{MaintenanceUnknown, MaintenanceOff, MaintenanceDraining, MaintenanceDrained} {
										for _, st := range []v1alpha1.RestartStep{v1alpha1.RestartDraining, v1alpha1.RestartRestarting} {
											for _, gone := range []bool{false, true} {
												for _, back := range []bool{false, true} {
													for _, stuck := range [][]StuckPod{nil, {{Ordinal: current - 1, Outdated: true}}, {{Ordinal: current - 1}}} {
														for i := range 16 {
															reclaimed := []int{50, 100}[i%2]
															o := Observation{Desired: current, Current: current, AdminUnavailable: down, Health: Health{Known: healthy},
																Rollout: Rollout{Outdated: outdated, AllReady: ready, Maintenance: m, OldPodGone: gone, Back: back && gone,
																	OldPodDeleting: back && !gone, PodReady: ready && !gone && !back, OthersUp: ready,
																	Next: Victim{Ordinal: current - 1, ID: 9, IDKnown: known, Status: vs}, Stuck: stuck,
																	Recovery: Recovery{Asked: back, Reclaimed: reclaimed, Wanted: 100}}}
															if name == "restart" {
																o.Rollout.Restart = &v1alpha1.BrokerRestart{Step: st, Ordinal: current - 1}
															}
															if i%4 >= 2 { // a skipped feature release
																o.Rollout.Upgrade = Upgrade{Image: "r:v25.1.1", Brokers: []BrokerVersion{{Pod: "p-0", Image: "r:v24.2.4"}}}
															}
															if i >= 8 { // a restart that would turn SASL on, the superuser not in place
																o.Rollout.SuperuserHold = "SuperuserPasswordDiffers"
															}
															if i%8 >= 4 { // a broker whose node is gone, its recovery due
																o.LostNodes = LostNodes{Recovery: true, OthersReady: true, Brokers: []LostBroker{{Ordinal: current - 1, IDKnown: true}}}
															}
															for i, tr := range table {
																if tr.match(o) {
																	seen[i] = true
																	break
																}
															}
														}
													}
												}
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
		for i, tr := range table {
			if !seen[i] {
				t.Errorf("%s row %d (%s: %s -> %s) never matches first", name, i, tr.State, tr.When, tr.Then)
			}
		}
	}
}

// A broker that takes longer than spec.rollout.recoveryTimeout to reclaim its load makes the
// cluster Degraded, naming the broker and its percentage; the next restart still waits.
func TestAnOverdueRecoveryIsDegradedAndStillWaits(t *testing.T) {
	r := &v1alpha1.BrokerRestart{Pod: "redpanda-2", Ordinal: 2, NodeID: 102, Step: v1alpha1.RestartRestarting, PodUID: "u2"}
	o := Observation{Cluster: "redpanda", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Restart: r, OldPodGone: true, Back: true, OthersUp: true,
		Recovery: Recovery{Asked: true, Reclaimed: 62, Wanted: 100, Waited: 31 * time.Minute, Timeout: 30 * time.Minute, Overdue: true}}}
	s := Decide(o)
	bc := &v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{Replicas: 3}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3, Restart: r}}
	st := NextStatus(bc, s, Write{Current: 3, Lifecycle: Lifecycle{Restart: r}}, time.Now())
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if s.Kind != WaitForRecovery || degraded == nil || degraded.Reason != ReasonBrokerRecoveryStalled ||
		!strings.Contains(degraded.Message, "broker 102") || !strings.Contains(degraded.Message, "62%") {
		t.Fatalf("decide = %s, Degraded %+v; want %s naming broker 102 and 62%%", s.Kind, degraded, ReasonBrokerRecoveryStalled)
	}
	o.Rollout.Recovery.Overdue, o.Rollout.Recovery.Waited = false, time.Minute
	s = Decide(o)
	st = NextStatus(bc, s, Write{Current: 3, Lifecycle: Lifecycle{Restart: r}}, time.Now())
	if d := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded); s.Kind != WaitForRecovery || d.Status != metav1.ConditionFalse {
		t.Errorf("within the timeout: %s, Degraded %+v; want a quiet wait", s.Kind, d)
	}
}

// The pod a restart deleted that is still there two minutes past its grace period (its node
// down, say) makes the cluster Degraded, naming the pod and its node, with one Warning event;
// the restart still waits, and never forces the delete. Within the grace the wait is quiet.
func TestAPodStuckTerminatingIsDegradedAndStillWaits(t *testing.T) {
	now := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
	r := &v1alpha1.BrokerRestart{Pod: "redpanda-2", Ordinal: 2, NodeID: 102, Step: v1alpha1.RestartRestarting, PodUID: "u2"}
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "redpanda"}, Spec: v1alpha1.BrokerClusterSpec{Replicas: 3},
		Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3, Restart: r}}
	pods := map[int]*corev1.Pod{}
	for i := range 3 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("redpanda-%d", i), UID: types.UID(fmt.Sprintf("u%d", i))}, Spec: corev1.PodSpec{NodeName: "node-a"}}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		pods[i] = p
	}
	deleted := metav1.NewTime(now.Add(-TerminatingGrace - time.Second))
	pods[2].DeletionTimestamp = &deleted

	o := Observation{Cluster: "redpanda", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: ObserveRollout(bc, "", pods, nil, now)}
	s := Decide(o)
	st := NextStatus(bc, s, Write{Current: 3, Lifecycle: Lifecycle{Restart: r}}, now)
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if s.Kind != WaitForRestart || degraded == nil || degraded.Reason != ReasonBrokerPodStuckTerminating ||
		!strings.Contains(degraded.Message, "redpanda-2") || !strings.Contains(degraded.Message, "node-a") {
		t.Fatalf("decide = %s, Degraded %+v; want %s naming the pod and its node", s.Kind, degraded, ReasonBrokerPodStuckTerminating)
	}
	events := Events(s, &bc.Status, &st)
	if len(events) != 1 || events[0].Type != corev1.EventTypeWarning || events[0].Reason != string(WaitForRestart) {
		t.Fatalf("events %+v, want one Warning WaitForRestart", events)
	}
	if again := Events(s, &st, &st); len(again) != 0 {
		t.Errorf("events %+v on the next poll of the same wait, want none", again)
	}

	recent := metav1.NewTime(now.Add(-time.Minute))
	pods[2].DeletionTimestamp = &recent
	o.Rollout = ObserveRollout(bc, "", pods, nil, now)
	s = Decide(o)
	st = NextStatus(bc, s, Write{Current: 3, Lifecycle: Lifecycle{Restart: r}}, now)
	if d := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded); s.Kind != WaitForRestart || d.Status != metav1.ConditionFalse {
		t.Errorf("within the grace: %s, Degraded %+v; want a quiet wait", s.Kind, d)
	}
}
