package controller

import "fmt"

// The scaling state machine. C is status.currentReplicas, D is spec.replicas and B is
// status.decommissioningBroker. The StatefulSet's replicas always follow C; C moves towards D
// one broker at a time, and a broker leaves only after its decommission has finished.

func decommissioning(o observation) bool { return o.Decommissioning != nil }
func shrinking(o observation) bool       { return o.Desired < o.Current }

// transitions is the state machine, read top to bottom; the first row that matches wins.
var transitions = []transition{
	// B set: a broker is being decommissioned.
	{"Decommissioning", "admin API did not answer", func(o observation) bool {
		return decommissioning(o) && o.Target == memberUnknown
	}, stepWaitAdmin},
	{"Decommissioning", "broker has left", func(o observation) bool {
		return decommissioning(o) && o.Target == memberAbsent
	}, stepFinish},
	{"Decommissioning", "spec grew back (D ≥ C) while draining", func(o observation) bool {
		return decommissioning(o) && !shrinking(o) && o.Target == memberDraining
	}, stepRecommission},
	{"Decommissioning", "spec grew back (D ≥ C) before the drain began", func(o observation) bool {
		return decommissioning(o) && !shrinking(o) && o.Target == memberActive
	}, stepCancel},
	{"Decommissioning", "broker still active", func(o observation) bool {
		return decommissioning(o) && o.Target == memberActive
	}, stepDecommission},
	{"Decommissioning", "broker draining", func(o observation) bool {
		return decommissioning(o) && o.Target == memberDraining
	}, stepWaitDrain},

	// B unset.
	{"Steady", "admin API did not answer", func(o observation) bool {
		return o.Current == o.Desired && o.AdminUnavailable
	}, stepWaitAdmin},
	{"Steady", "C = D", func(o observation) bool { return o.Current == o.Desired }, stepNone},
	// A scale-up right after a decommission finished must not give the ordinal back while the
	// pod that ran the broker that left, or its condemned volume claim, is still there
	// (leftovers.go). Wait until they are gone.
	{"ScalingUp", "the pod or volume claim of a broker that left is not gone yet", func(o observation) bool {
		return o.Current < o.Desired && o.Leftovers > 0
	}, stepWaitPodGone},
	{"ScalingUp", "C < D", func(o observation) bool { return o.Current < o.Desired }, stepScaleUp},
	{"ScalingDown", "admin API did not answer", func(o observation) bool {
		return o.Victim.Status == memberUnknown
	}, stepWaitAdmin},
	{"ScalingDown", "admin check: broker already left", func(o observation) bool {
		return o.AdminCheck && o.Victim.Status == memberAbsent
	}, stepSkipAbsent},
	{"ScalingDown", "admin check: broker already draining", func(o observation) bool {
		return o.AdminCheck && o.Victim.Status == memberDraining
	}, stepAdoptDrain},
	{"ScalingDown", "broker ID not known", func(o observation) bool { return !o.Victim.IDKnown }, stepWaitBrokerID},
	{"ScalingDown", "health gate closed", gateClosed, stepWaitHealthy},
	{"ScalingDown", "next broker to go", func(observation) bool { return true }, stepStartDecommission},
}

// decideScale names the scaling step for o.
func decideScale(o observation) step {
	for _, t := range transitions {
		if !t.match(o) {
			continue
		}
		s := step{Kind: t.Then, Reason: fmt.Sprintf("%s: %s (current %d, desired %d)", t.State, t.When, o.Current, o.Desired)}
		if t.Then == stepWaitHealthy {
			s.Reason += ": " + o.Health.String()
		}
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
