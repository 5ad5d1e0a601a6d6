package controller

// The scaling state machine. C is status.currentReplicas, D is spec.replicas and B is
// status.decommissioningBroker. The StatefulSet's replicas always follow C; C moves towards D
// one broker at a time, and a broker leaves only after its decommission has finished. The When
// column says in words what holds: "fewer brokers than desired" is C < D, "spec.replicas went
// back up" is D ≥ C while B is set, and "the next broker to go" is the broker of pod C-1.

func decommissioning(o observation) bool { return o.Decommissioning != nil }
func shrinking(o observation) bool       { return o.Desired < o.Current }

// transitions is the state machine, read top to bottom; the first row that matches wins.
var transitions = []transition{
	// B set: a broker is being decommissioned.
	{"Decommissioning", "the admin API did not answer", func(o observation) bool {
		return decommissioning(o) && o.Target == memberUnknown
	}, stepWaitAdmin},
	{"Decommissioning", "the broker has left the cluster", func(o observation) bool {
		return decommissioning(o) && o.Target == memberAbsent
	}, stepFinish},
	{"Decommissioning", "spec.replicas went back up while the broker drains", func(o observation) bool {
		return decommissioning(o) && !shrinking(o) && o.Target == memberDraining
	}, stepRecommission},
	{"Decommissioning", "spec.replicas went back up before the drain began", func(o observation) bool {
		return decommissioning(o) && !shrinking(o) && o.Target == memberActive
	}, stepCancel},
	{"Decommissioning", "the broker is still an active member", func(o observation) bool {
		return decommissioning(o) && o.Target == memberActive
	}, stepDecommission},
	{"Decommissioning", "the broker is draining", func(o observation) bool {
		return decommissioning(o) && o.Target == memberDraining
	}, stepWaitDrain},

	// B unset.
	{"Steady", "the admin API did not answer", func(o observation) bool {
		return o.Current == o.Desired && o.AdminUnavailable
	}, stepWaitAdmin},
	{"Steady", "as many brokers as desired", func(o observation) bool { return o.Current == o.Desired }, stepNone},
	// A scale-up right after a decommission finished must not give the ordinal back while the
	// pod that ran the broker that left, or its condemned volume claim, is still there
	// (leftovers.go). Wait until they are gone.
	{"ScalingUp", "the pod or volume claim of a broker that left is not gone yet", func(o observation) bool {
		return o.Current < o.Desired && o.Leftovers > 0
	}, stepWaitPodGone},
	{"ScalingUp", "fewer brokers than desired", func(o observation) bool { return o.Current < o.Desired }, stepScaleUp},
	{"ScalingDown", "the admin API did not answer", func(o observation) bool {
		return o.Victim.Status == memberUnknown
	}, stepWaitAdmin},
	{"ScalingDown", "admin check: the next broker to go has already left", func(o observation) bool {
		return o.AdminCheck && o.Victim.Status == memberAbsent
	}, stepSkipAbsent},
	{"ScalingDown", "admin check: the next broker to go is already draining", func(o observation) bool {
		return o.AdminCheck && o.Victim.Status == memberDraining
	}, stepAdoptDrain},
	{"ScalingDown", "the next broker's ID is not known", func(o observation) bool { return !o.Victim.IDKnown }, stepWaitBrokerID},
	{"ScalingDown", "the health gate is closed", gateClosed, stepWaitHealthy},
	{"ScalingDown", "a broker is next to go", func(observation) bool { return true }, stepStartDecommission},
}

// decideScale names the scaling step for o.
func decideScale(o observation) step {
	for _, t := range transitions {
		if !t.match(o) {
			continue
		}
		s := step{Kind: t.Then, Reason: scaleReason(t, o)}
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
