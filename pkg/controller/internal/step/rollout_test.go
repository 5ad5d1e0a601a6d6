package controller

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestDecideRollout(t *testing.T) {
	ok := health{Known: true}
	sick := health{Known: true, Problems: []string{"3 under-replicated partitions"}}
	next := victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberActive}
	pending := func(r rollout) rollout {
		r.Outdated, r.AllReady, r.Next, r.NextPod, r.NextPodUID = 2, true, next, "redpanda-2", "uid-2"
		return r
	}
	// facts: what a restart under way relies on holds (steps.go).
	facts := func(r rollout) rollout {
		r.PodReady, r.OthersUp = !r.OldPodGone, true
		return r
	}
	restart := func(st v1alpha1.RestartStep) *v1alpha1.BrokerRestart {
		return &v1alpha1.BrokerRestart{Pod: "redpanda-2", Ordinal: 2, NodeID: 102, Step: st, PodUID: "uid-2"}
	}
	tests := []struct {
		name       string
		o          observation
		want       stepKind
		wantBroker *int32
	}{
		{"every pod up to date", observation{Desired: 3, Current: 3, Health: ok}, stepNone, nil},
		{"outdated pods, admin API down",
			observation{Desired: 3, Current: 3, AdminUnavailable: true, Rollout: pending(rollout{})}, stepWaitAdmin, nil},
		{"outdated pods, next broker's membership unknown",
			observation{Desired: 3, Current: 3, Health: ok, Rollout: rollout{Outdated: 1, AllReady: true, Next: victim{Ordinal: 2}}}, stepWaitAdmin, nil},
		{"outdated pods, a pod not ready",
			observation{Desired: 3, Current: 3, Health: ok, Rollout: func() rollout { r := pending(rollout{}); r.AllReady = false; return r }()}, stepWaitPods, ptr.To[int32](102)},
		{"outdated pods, cluster unhealthy: the health gate waits",
			observation{Desired: 3, Current: 3, Health: sick, Rollout: pending(rollout{})}, stepWaitHealthy, ptr.To[int32](102)},
		{"outdated pods, unhealthy but the gate overridden",
			observation{Desired: 3, Current: 3, Health: sick, SkipHealthGate: true, Rollout: pending(rollout{})}, stepStartRestart, ptr.To[int32](102)},
		{"outdated pods, broker ID not known",
			observation{Desired: 3, Current: 3, Health: ok, Rollout: rollout{Outdated: 1, AllReady: true, Next: victim{Ordinal: 2, Status: memberAbsent}}}, stepWaitBrokerID, nil},
		{"outdated pods, next broker draining (not an active member)",
			observation{Desired: 3, Current: 3, Health: ok, Rollout: rollout{Outdated: 1, AllReady: true, Next: victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberDraining}}}, stepWaitPods, ptr.To[int32](102)},
		{"single broker: restart without maintenance mode",
			observation{Desired: 1, Current: 1, Health: ok, Rollout: pending(rollout{})}, stepRestartAlone, ptr.To[int32](102)},
		{"outdated pods: restart the highest ordinal's broker",
			observation{Desired: 3, Current: 3, Health: ok, Rollout: pending(rollout{})}, stepStartRestart, ptr.To[int32](102)},

		{"draining, admin API down",
			observation{Desired: 3, Current: 3, AdminUnavailable: true, Rollout: rollout{Restart: restart(v1alpha1.RestartDraining)}}, stepWaitAdmin, ptr.To[int32](102)},
		{"draining, maintenance status unknown",
			observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining)})}, stepWaitAdmin, ptr.To[int32](102)},
		{"draining, maintenance not on (the call was lost): turn it on",
			observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceOff})}, stepEnableMaintenance, ptr.To[int32](102)},
		{"draining, leadership still moving",
			observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceDraining})}, stepWaitLeadership, ptr.To[int32](102)},
		{"draining, drained: restart the pod",
			observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceDrained})}, stepRestartPod, ptr.To[int32](102)},
		{"restarting, old pod still there: delete it (UID precondition)",
			observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartRestarting)})}, stepDeletePod, ptr.To[int32](102)},
		{"restarting, new pod not back",
			observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true})}, stepWaitRestart, ptr.To[int32](102)},
		{"restarting, broker back: maintenance off",
			observation{Health: ok, Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true})}, stepFinishRestart, ptr.To[int32](102)},
		{"restarting, admin API down while waiting for the broker",
			observation{Desired: 3, Current: 3, AdminUnavailable: true, Rollout: rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true}}, stepWaitAdmin, ptr.To[int32](102)},

		// A fact a restart relies on stops holding before its pod is deleted.
		{"draining, a broker went down, maintenance not on yet: wait",
			observation{Desired: 3, Current: 3, Health: sick, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceOff})}, stepWaitHealthy, ptr.To[int32](102)},
		{"draining, a broker went down, maintenance on: suspend (maintenance off)",
			observation{Desired: 3, Current: 3, Health: sick, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceDrained})}, stepSuspendRestart, ptr.To[int32](102)},
		{"draining, its own pod not Ready: suspend",
			observation{Desired: 3, Current: 3, Health: ok, Rollout: rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceDraining, OthersUp: true}}, stepSuspendRestart, ptr.To[int32](102)},
		{"restarting, old pod still there, another broker down: suspend",
			observation{Desired: 3, Current: 3, Health: ok, Rollout: rollout{Restart: restart(v1alpha1.RestartRestarting), PodReady: true}}, stepSuspendRestart, ptr.To[int32](102)},
		{"restarting, old pod being deleted: the restart under way goes on",
			observation{Desired: 3, Current: 3, Health: sick, Rollout: rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodDeleting: true}}, stepWaitRestart, ptr.To[int32](102)},
		{"draining, health not known: wait for the admin API",
			observation{Desired: 3, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceDrained})}, stepWaitAdmin, ptr.To[int32](102)},

		// The order of scaling and rollout.
		{"scale-down requested mid-restart: the restart finishes first",
			observation{Desired: 2, Current: 3, Health: ok, Victim: next, AdminCheck: true, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartDraining), Maintenance: maintenanceDraining})}, stepWaitLeadership, ptr.To[int32](102)},
		{"scale-up requested mid-restart: the restart finishes first",
			observation{Health: ok, Desired: 5, Current: 3, Rollout: facts(rollout{Restart: restart(v1alpha1.RestartRestarting), OldPodGone: true, Back: true})}, stepFinishRestart, ptr.To[int32](102)},
		{"between two restarts a scale-down goes first",
			observation{Desired: 2, Current: 3, Health: ok, Victim: next, AdminCheck: true, Rollout: pending(rollout{})}, stepStartDecommission, ptr.To[int32](102)},
		{"between two restarts a scale-up goes first",
			observation{Desired: 5, Current: 3, Health: ok, Rollout: pending(rollout{})}, stepScaleUp, nil},
		{"a decommission under way goes before the rollout",
			observation{Desired: 2, Current: 3, Health: ok, Decommissioning: ptr.To[int32](102), Target: memberDraining, AdminCheck: true, Rollout: pending(rollout{})}, stepWaitDrain, ptr.To[int32](102)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decide(tt.o)
			if got.Kind != tt.want {
				t.Fatalf("decide = %s (%s), want %s", got.Kind, got.Reason, tt.want)
			}
			if ptr.Deref(got.Broker, -1) != ptr.Deref(tt.wantBroker, -1) {
				t.Fatalf("acts on broker %s, want %s", ptrString(got.Broker), ptrString(tt.wantBroker))
			}
			if got.Reason == "" {
				t.Fatal("decision without a reason")
			}
		})
	}
}

func TestStartRestartRecordsTheBroker(t *testing.T) {
	o := observation{Desired: 3, Current: 3, Health: health{Known: true}, Rollout: rollout{Outdated: 1, AllReady: true,
		Next: victim{Ordinal: 1, ID: 101, IDKnown: true, Status: memberActive}, NextPod: "redpanda-1", NextPodUID: "u1"}}
	s := decide(o)
	want := v1alpha1.BrokerRestart{Pod: "redpanda-1", Ordinal: 1, NodeID: 101, Step: v1alpha1.RestartDraining, PodUID: "u1"}
	if s.Kind != stepStartRestart || s.Restart == nil || *s.Restart != want {
		t.Fatalf("decide = %s with record %+v, want %s with %+v", s.Kind, s.Restart, stepStartRestart, want)
	}
	o.Current, o.Desired = 1, 1
	s = decide(o)
	if s.Kind != stepRestartAlone || s.Restart == nil || s.Restart.Step != v1alpha1.RestartRestarting {
		t.Fatalf("single broker: decide = %s with record %+v, want %s recording step Restarting", s.Kind, s.Restart, stepRestartAlone)
	}
	if decide(observation{Desired: 3, Current: 3, Health: health{Known: true, Problems: []string{"brokers down: [100]"}}, Rollout: o.Rollout}).Reason == "" {
		t.Fatal("no reason")
	}
}

func TestHealthGateReasonNamesTheProblem(t *testing.T) {
	o := observation{Desired: 3, Current: 3, Health: health{Known: true, Problems: []string{"brokers down: [100]"}},
		Rollout: rollout{Outdated: 1, AllReady: true, Next: victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberActive}}}
	s := decide(o)
	if s.Kind != stepWaitHealthy || !strings.Contains(s.Reason, "brokers down: [100]") {
		t.Fatalf("decide = %s (%q), want %s naming the down broker", s.Kind, s.Reason, stepWaitHealthy)
	}
}

// Every row of both rollout tables must be reachable.
func TestRolloutTransitionsAllReachable(t *testing.T) {
	for name, table := range map[string][]transition{"restart": restartTransitions, "rollout": rolloutTransitions} {
		seen := map[int]bool{}
		for _, current := range []int32{1, 3} {
			for _, outdated := range []int{0, 1} {
				for _, ready := range []bool{false, true} {
					for _, healthy := range []bool{false, true} {
						for _, down := range []bool{false, true} {
							for _, known := range []bool{false, true} {
								for _, vs := range []membership{memberUnknown, memberActive, memberDraining, memberAbsent} {
									for _, m := range []maintenance{maintenanceUnknown, maintenanceOff, maintenanceDraining, maintenanceDrained} {
										for _, st := range []v1alpha1.RestartStep{v1alpha1.RestartDraining, v1alpha1.RestartRestarting} {
											for _, gone := range []bool{false, true} {
												for _, back := range []bool{false, true} {
													o := observation{Desired: current, Current: current, AdminUnavailable: down, Health: health{Known: healthy},
														Rollout: rollout{Outdated: outdated, AllReady: ready, Maintenance: m, OldPodGone: gone, Back: back && gone,
															OldPodDeleting: back && !gone, PodReady: ready && !gone && !back, OthersUp: ready,
															Next: victim{Ordinal: current - 1, ID: 9, IDKnown: known, Status: vs}}}
													if name == "restart" {
														o.Rollout.Restart = &v1alpha1.BrokerRestart{Step: st}
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
		for i, tr := range table {
			if !seen[i] {
				t.Errorf("%s row %d (%s: %s -> %s) never matches first", name, i, tr.State, tr.When, tr.Then)
			}
		}
	}
}
