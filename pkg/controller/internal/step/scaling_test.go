package controller

import (
	"testing"

	"k8s.io/utils/ptr"
)

func TestDecide(t *testing.T) {
	active := func(ordinal, id int32) victim {
		return victim{Ordinal: ordinal, ID: id, IDKnown: true, Status: memberActive}
	}
	ok := health{Known: true}
	sick := health{Known: true, Problems: []string{"brokers down: [101]"}}
	tests := []struct {
		name       string
		o          observation
		want       stepKind
		wantBroker *int32
	}{
		{"steady", observation{Desired: 3, Current: 3}, stepNone, nil},
		{"steady, admin API down while mapping pods", observation{Desired: 3, Current: 3, AdminUnavailable: true}, stepWaitAdmin, nil},
		{"new cluster", observation{Desired: 3, Current: 0}, stepScaleUp, nil},
		{"scale up", observation{Desired: 5, Current: 3}, stepScaleUp, nil},
		{"scale up with admin API down", observation{Desired: 5, Current: 3, AdminUnavailable: true}, stepScaleUp, nil},
		{"scale up while the pod of a broker that left is still there: wait for it to go",
			observation{Desired: 3, Current: 2, Leftovers: 1}, stepWaitPodGone, nil},
		{"scale down with a leftover pod above: the next broker goes as usual",
			observation{Desired: 1, Current: 2, Leftovers: 1, Victim: active(1, 101), AdminCheck: true, Health: ok}, stepStartDecommission, ptr.To[int32](101)},

		{"scale down starts with the highest ordinal's broker",
			observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: ok}, stepStartDecommission, ptr.To[int32](102)},
		{"scale down, a broker down: the health gate waits",
			observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: sick}, stepWaitHealthy, ptr.To[int32](102)},
		{"scale down, health unknown: the health gate waits",
			observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true}, stepWaitHealthy, ptr.To[int32](102)},
		{"scale down, unhealthy but the gate overridden",
			observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: sick, SkipHealthGate: true}, stepStartDecommission, ptr.To[int32](102)},
		{"scale down, broker draining: no health gate to adopt the drain",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberDraining}, AdminCheck: true, Health: sick}, stepAdoptDrain, ptr.To[int32](102)},
		{"scale down, admin API down",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2}, AdminCheck: true}, stepWaitAdmin, nil},
		{"scale down, broker already left: guard skips it",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberAbsent}, AdminCheck: true}, stepSkipAbsent, ptr.To[int32](102)},
		{"scale down, broker never joined: guard skips it",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2, Status: memberAbsent}, AdminCheck: true}, stepSkipAbsent, nil},
		{"scale down, broker draining: guard adopts the drain",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberDraining}, AdminCheck: true}, stepAdoptDrain, ptr.To[int32](102)},
		{"unguarded: a broker that left is decommissioned again (the seed's bug)",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberAbsent}, Health: ok}, stepStartDecommission, ptr.To[int32](102)},
		{"unguarded: a draining broker is decommissioned again",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2, ID: 102, IDKnown: true, Status: memberDraining}, Health: ok}, stepStartDecommission, ptr.To[int32](102)},
		{"unguarded: no ID known",
			observation{Desired: 2, Current: 3, Victim: victim{Ordinal: 2, Status: memberAbsent}}, stepWaitBrokerID, nil},

		{"decommissioning, broker active: decommission it",
			observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberActive, AdminCheck: true}, stepDecommission, ptr.To[int32](102)},
		{"decommissioning, broker draining: wait",
			observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberDraining, AdminCheck: true}, stepWaitDrain, ptr.To[int32](102)},
		{"decommissioning, broker left: finish",
			observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberAbsent, AdminCheck: true}, stepFinish, ptr.To[int32](102)},
		{"decommissioning, admin API down",
			observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberUnknown, AdminCheck: true}, stepWaitAdmin, ptr.To[int32](102)},
		{"scale up during a drain: recommission",
			observation{Desired: 3, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberDraining, AdminCheck: true}, stepRecommission, ptr.To[int32](102)},
		{"scale up past current during a drain: recommission",
			observation{Desired: 5, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberDraining}, stepRecommission, ptr.To[int32](102)},
		{"scale up before the drain began: cancel",
			observation{Desired: 3, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberActive}, stepCancel, ptr.To[int32](102)},
		{"scale up after the broker left: finish, then scale up",
			observation{Desired: 3, Current: 3, Decommissioning: ptr.To[int32](102), Target: memberAbsent}, stepFinish, ptr.To[int32](102)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decide(tt.o)
			if got.Kind != tt.want {
				t.Fatalf("decide(%+v) = %s (%s), want %s", tt.o, got.Kind, got.Reason, tt.want)
			}
			if ptr.Deref(got.Broker, -1) != ptr.Deref(tt.wantBroker, -1) {
				t.Fatalf("decide(%+v) acts on broker %s, want %s", tt.o, ptrString(got.Broker), ptrString(tt.wantBroker))
			}
			if got.Reason == "" {
				t.Fatal("decision without a reason")
			}
		})
	}
}

// Every row of the table must be reachable: a row shadowed by the ones above it is a mistake.
func TestTransitionsAllReachable(t *testing.T) {
	seen := map[int]bool{}
	memberships := []membership{memberUnknown, memberActive, memberDraining, memberAbsent}
	for _, desired := range []int32{1, 2, 3} {
		for _, current := range []int32{1, 2, 3} {
			for _, b := range []*int32{nil, ptr.To[int32](7)} {
				for _, target := range memberships {
					for _, vs := range memberships {
						for _, known := range []bool{false, true} {
							for _, check := range []bool{false, true} {
								for _, down := range []bool{false, true} {
									for _, healthy := range []bool{false, true} {
										for _, leftover := range []int{0, 1} {
											o := observation{Desired: desired, Current: current, Decommissioning: b, Target: target,
												Victim: victim{Ordinal: current - 1, ID: 9, IDKnown: known, Status: vs}, AdminCheck: check, AdminUnavailable: down,
												Health: health{Known: healthy}, Leftovers: leftover}
											for i, tr := range transitions {
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
	for i, tr := range transitions {
		if !seen[i] {
			t.Errorf("row %d (%s: %s -> %s) never matches first", i, tr.State, tr.When, tr.Then)
		}
	}
}
