package step

import (
	"testing"

	"k8s.io/utils/ptr"
)

func TestDecide(t *testing.T) {
	active := func(ordinal, id int32) Victim {
		return Victim{Ordinal: ordinal, ID: id, IDKnown: true, Status: MemberActive}
	}
	ok := Health{Known: true}
	sick := Health{Known: true, Problems: []string{"brokers down: [101]"}}
	tests := []struct {
		name       string
		o          Observation
		want       Kind
		wantBroker *int32
	}{
		{"steady", Observation{Desired: 3, Current: 3}, None, nil},
		{"steady, admin API down while mapping pods", Observation{Desired: 3, Current: 3, AdminUnavailable: true}, WaitForAdminAPI, nil},
		{"new cluster", Observation{Desired: 3, Current: 0}, ScaleUp, nil},
		{"scale up", Observation{Desired: 5, Current: 3}, ScaleUp, nil},
		{"scale up with admin API down", Observation{Desired: 5, Current: 3, AdminUnavailable: true}, ScaleUp, nil},
		{"scale up while the pod of a broker that left is still there: wait for it to go",
			Observation{Desired: 3, Current: 2, Leftovers: 1}, WaitForRemovedPod, nil},
		{"scale down with a leftover pod above: the next broker goes as usual",
			Observation{Desired: 1, Current: 2, Leftovers: 1, Victim: active(1, 101), AdminCheck: true, Health: ok}, StartDecommission, ptr.To[int32](101)},

		{"scale down starts with the highest ordinal's broker",
			Observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: ok}, StartDecommission, ptr.To[int32](102)},
		{"scale down, a broker down: the health gate waits",
			Observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: sick}, WaitForHealthyCluster, ptr.To[int32](102)},
		{"scale down, health unknown: the health gate waits",
			Observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true}, WaitForHealthyCluster, ptr.To[int32](102)},
		{"scale down, unhealthy but the gate overridden",
			Observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: sick, SkipHealthGate: true}, StartDecommission, ptr.To[int32](102)},
		{"scale down, broker draining: no health gate to adopt the drain",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberDraining}, AdminCheck: true, Health: sick}, AdoptDrain, ptr.To[int32](102)},
		{"scale down, admin API down",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2}, AdminCheck: true}, WaitForAdminAPI, nil},
		{"scale down, broker already left: guard skips it",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberAbsent}, AdminCheck: true}, SkipAbsentBroker, ptr.To[int32](102)},
		{"scale down, broker never joined: guard skips it",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2, Status: MemberAbsent}, AdminCheck: true}, SkipAbsentBroker, nil},
		{"scale down, broker draining: guard adopts the drain",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberDraining}, AdminCheck: true}, AdoptDrain, ptr.To[int32](102)},
		{"unguarded: a broker that left is decommissioned again (the seed's bug)",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberAbsent}, Health: ok}, StartDecommission, ptr.To[int32](102)},
		{"unguarded: a draining broker is decommissioned again",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberDraining}, Health: ok}, StartDecommission, ptr.To[int32](102)},
		{"unguarded: no ID known",
			Observation{Desired: 2, Current: 3, Victim: Victim{Ordinal: 2, Status: MemberAbsent}}, WaitForBrokerID, nil},

		{"decommissioning, broker active: decommission it",
			Observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberActive, AdminCheck: true}, Decommission, ptr.To[int32](102)},
		{"decommissioning, broker draining: wait",
			Observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberDraining, AdminCheck: true}, WaitForDrain, ptr.To[int32](102)},
		{"decommissioning, broker left: finish",
			Observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberAbsent, AdminCheck: true}, FinishDecommission, ptr.To[int32](102)},
		{"decommissioning, admin API down",
			Observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberUnknown, AdminCheck: true}, WaitForAdminAPI, ptr.To[int32](102)},
		{"scale up during a drain: recommission",
			Observation{Desired: 3, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberDraining, AdminCheck: true}, Recommission, ptr.To[int32](102)},
		{"scale up past current during a drain: recommission",
			Observation{Desired: 5, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberDraining}, Recommission, ptr.To[int32](102)},
		{"scale up before the drain began: cancel",
			Observation{Desired: 3, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberActive}, CancelDecommission, ptr.To[int32](102)},
		{"scale down below the largest replication factor: held before anything is decommissioned",
			Observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: ok, Placement: placement(2, 3)}, HoldScaleDown, ptr.To[int32](102)},
		{"scale down below the largest replication factor with the gate closed: the hold says why it cannot go on at all",
			Observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: sick, Placement: placement(2, 3)}, HoldScaleDown, ptr.To[int32](102)},
		{"scale down to the largest replication factor: it goes on",
			Observation{Desired: 3, Current: 4, Victim: active(3, 103), AdminCheck: true, Health: ok, Placement: placement(3, 3)}, StartDecommission, ptr.To[int32](103)},
		{"scale down on a Redpanda without the partitions route: it goes on unchecked",
			Observation{Desired: 2, Current: 3, Victim: active(2, 102), AdminCheck: true, Health: ok, Placement: Placement{Asked: true, NoRoute: true, Target: 2}}, StartDecommission, ptr.To[int32](102)},
		{"decommissioning, broker active, the data no longer fits: held",
			Observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberActive, AdminCheck: true, Placement: placement(2, 3)}, HoldScaleDown, ptr.To[int32](102)},
		{"decommissioning, broker draining when the data no longer fits: the drain is followed",
			Observation{Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberDraining, AdminCheck: true, Placement: placement(2, 3)}, WaitForDrain, ptr.To[int32](102)},
		{"scale up after the broker left: finish, then scale up",
			Observation{Desired: 3, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberAbsent}, FinishDecommission, ptr.To[int32](102)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.o)
			if got.Kind != tt.want {
				t.Fatalf("decide(%+v) = %s (%s), want %s", tt.o, got.Kind, got.Reason, tt.want)
			}
			if ptr.Deref(got.Broker, -1) != ptr.Deref(tt.wantBroker, -1) {
				t.Fatalf("decide(%+v) acts on broker %s, want %s", tt.o, OptionalID(got.Broker), OptionalID(tt.wantBroker))
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
	memberships := []Membership{MemberUnknown, MemberActive, MemberDraining, MemberAbsent}
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
											for _, rf := range []int32{1, 3} {
												o := Observation{Desired: desired, Current: current, Decommissioning: b, Target: target,
													Victim: Victim{Ordinal: current - 1, ID: 9, IDKnown: known, Status: vs}, AdminCheck: check, AdminUnavailable: down,
													Health: Health{Known: healthy}, Leftovers: leftover, Placement: placement(desired, rf)}
												for i, tr := range scaleTransitions {
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
	for i, tr := range scaleTransitions {
		if !seen[i] {
			t.Errorf("row %d (%s: %s -> %s) never matches first", i, tr.State, tr.When, tr.Then)
		}
	}
}

// placement is a pre-flight's observation of one topic, kafka/orders, with rf replicas on every
// partition, for a scale-down to target brokers.
func placement(target, rf int32) Placement {
	replicas := make([]int32, rf)
	for i := range replicas {
		replicas[i] = 100 + int32(i)
	}
	return Placement{Asked: true, Target: target, Partitions: []PartitionReplicas{{Topic: "kafka/orders", Replicas: replicas}}}
}
