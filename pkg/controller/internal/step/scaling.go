package step

// The scaling state machine. C is status.currentReplicas, D is spec.replicas and B is
// status.decommissioningBroker. The StatefulSet's replicas always follow C; C moves towards D
// one broker at a time, and a broker leaves only after its decommission has finished. The When
// column says in words what holds: "fewer brokers than desired" is C < D, "spec.replicas went
// back up" is D ≥ C while B is set, and "the next broker to go" is the broker of pod C-1.

func decommissioning(o Observation) bool { return o.Decommissioning != nil }
func shrinking(o Observation) bool       { return o.Desired < o.Current }

// transitions is the state machine, read top to bottom; the first row that matches wins.
var scaleTransitions = []Transition{
	// B set: a broker is being decommissioned.
	{"Decommissioning", "the admin API did not answer", func(o Observation) bool {
		return decommissioning(o) && o.Target == MemberUnknown
	}, WaitForAdminAPI},
	{"Decommissioning", "the broker has left the cluster", func(o Observation) bool {
		return decommissioning(o) && o.Target == MemberAbsent
	}, FinishDecommission},
	{"Decommissioning", "spec.replicas went back up while the broker drains", func(o Observation) bool {
		return decommissioning(o) && !shrinking(o) && o.Target == MemberDraining
	}, Recommission},
	{"Decommissioning", "spec.replicas went back up before the drain began", func(o Observation) bool {
		return decommissioning(o) && !shrinking(o) && o.Target == MemberActive
	}, CancelDecommission},
	{"Decommissioning", "the brokers that would remain cannot hold the data", func(o Observation) bool {
		return decommissioning(o) && o.Target == MemberActive && o.Placement.Refused() != ""
	}, HoldScaleDown},
	{"Decommissioning", "the broker is still an active member", func(o Observation) bool {
		return decommissioning(o) && o.Target == MemberActive
	}, Decommission},
	{"Decommissioning", "the broker is draining", func(o Observation) bool {
		return decommissioning(o) && o.Target == MemberDraining
	}, WaitForDrain},

	// B unset.
	{"Steady", "the admin API did not answer", func(o Observation) bool {
		return o.Current == o.Desired && o.AdminUnavailable
	}, WaitForAdminAPI},
	{"Steady", "as many brokers as desired", func(o Observation) bool { return o.Current == o.Desired }, None},
	// A scale-up right after a decommission finished must not give the ordinal back while the
	// pod that ran the broker that left, or its condemned volume claim, is still there
	// (pkg/controller/leftovers.go). Wait until they are gone.
	{"ScalingUp", "the pod or volume claim of a broker that left is not gone yet", func(o Observation) bool {
		return o.Current < o.Desired && o.Leftovers > 0
	}, WaitForRemovedPod},
	{"ScalingUp", "fewer brokers than desired", func(o Observation) bool { return o.Current < o.Desired }, ScaleUp},
	{"ScalingDown", "the admin API did not answer", func(o Observation) bool {
		return o.Victim.Status == MemberUnknown
	}, WaitForAdminAPI},
	{"ScalingDown", "admin check: the next broker to go has already left", func(o Observation) bool {
		return o.AdminCheck && o.Victim.Status == MemberAbsent
	}, SkipAbsentBroker},
	{"ScalingDown", "admin check: the next broker to go is already draining", func(o Observation) bool {
		return o.AdminCheck && o.Victim.Status == MemberDraining
	}, AdoptDrain},
	{"ScalingDown", "the next broker's ID is not known", func(o Observation) bool { return !o.Victim.IDKnown }, WaitForBrokerID},
	{"ScalingDown", "the brokers that would remain cannot hold the data", func(o Observation) bool {
		return o.Placement.Refused() != ""
	}, HoldScaleDown},
	{"ScalingDown", "the health gate is closed", gateClosed, WaitForHealthyCluster},
	{"ScalingDown", "a broker is next to go", func(Observation) bool { return true }, StartDecommission},
}

// decideScale names the scaling step for o.
func decideScale(o Observation) Step {
	for _, t := range scaleTransitions {
		if !t.match(o) {
			continue
		}
		s := Step{Kind: t.Then, Reason: scaleReason(t, o)}
		switch {
		case o.Decommissioning != nil:
			s.Broker = o.Decommissioning
		case o.Current > o.Desired && o.Victim.IDKnown:
			id := o.Victim.ID
			s.Broker = &id
		}
		return s
	}
	panic("controller: the transition table has no row for this observation") // the last row matches everything
}

// NextToGo is the ordinal of the pod whose broker a scale-down takes next: the highest, C-1.
// Which broker that pod runs is asked of the pod's own admin API (internal/brokers/identity.go);
// a broker that cannot be named makes the scale-down wait (WaitForBrokerID).
func NextToGo(current int32) int32 {
	if current > 0 {
		return current - 1
	}
	return 0
}
