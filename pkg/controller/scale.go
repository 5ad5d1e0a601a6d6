package controller

import (
	"fmt"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The scaling state machine. C is status.currentReplicas, D is spec.replicas and B is
// status.decommissioningBroker. The StatefulSet's replicas always follow C; C moves towards D
// one broker at a time, and a broker leaves only after its decommission has finished.
//
// decide is pure: it looks at an observation and names one step. sync.go carries the step out.

// membership is what the admin API says about one broker.
type membership int

const (
	// memberUnknown: the admin API was not asked, or did not answer.
	memberUnknown membership = iota
	memberActive
	memberDraining
	// memberAbsent: the admin API answered and does not list the broker: it never joined, or
	// its decommission has finished and it left.
	memberAbsent
	// memberUnidentified: the admin API answered, but which broker the pod runs cannot be told
	// (its node_config did not answer, and nothing else names it). Unknown is not absent: the
	// scale-down waits.
	memberUnidentified
)

func (m membership) String() string {
	return [...]string{"unknown", "active", "draining", "absent", "unidentified"}[m]
}

// observation is everything a scaling decision rests on.
type observation struct {
	Desired int32 // D
	Current int32 // C
	// Decommissioning is B, nil when no broker is being decommissioned.
	Decommissioning *int32
	// Target is the admin API's view of broker B.
	Target membership
	// Victim is the broker run by the pod with the highest ordinal, C-1: the next to go.
	Victim victim
	// AdminUnavailable: the admin API was asked (to map pods to brokers) and did not answer.
	AdminUnavailable bool
	// AdminCheck is true unless Guards.SkipAdminCheck.
	AdminCheck bool
	// Health is the brokers' health_overview, read when a step behind the health gate may be
	// next (health.go).
	Health health
	// SkipHealthGate is spec.unsafeSkipHealthGate.
	SkipHealthGate bool
	// Rollout is what a rollout decision rests on (rolling.go).
	Rollout rollout
	// Ghosts are the ghost brokers the admin API showed (ghosts.go); nil when it was not asked.
	Ghosts []int32
	// Leftovers counts the pods at ordinals C and above, and the volume claims a scale-down
	// condemned at ordinals C to D-1: what brokers that have left leave behind until the
	// StatefulSet and the garbage collector have removed it (leftovers.go).
	Leftovers int
}

// victim is what is known of the broker at ordinal C-1.
type victim struct {
	Ordinal int32
	// ID is the broker's node ID; IDKnown says whether it is known at all, from the admin API's
	// list or, for a broker the list no longer has, from its pod's node-id annotation.
	ID      int32
	IDKnown bool
	Status  membership
}

// stepKind names what a reconcile does.
type stepKind string

const (
	stepNone              stepKind = "None"
	stepScaleUp           stepKind = "ScaleUp"
	stepStartDecommission stepKind = "StartDecommission"
	stepAdoptDrain        stepKind = "AdoptDrain"
	stepSkipAbsent        stepKind = "SkipAbsentBroker"
	stepDecommission      stepKind = "Decommission"
	stepWaitDrain         stepKind = "WaitForDrain"
	stepFinish            stepKind = "FinishDecommission"
	stepRecommission      stepKind = "Recommission"
	stepCancel            stepKind = "CancelDecommission"
	stepWaitAdmin         stepKind = "WaitForAdminAPI"
	stepWaitBrokerID      stepKind = "WaitForBrokerID"
	stepWaitPodGone       stepKind = "WaitForRemovedPod"
)

// What each step writes and calls:
//
//	step               status write                       admin call        then
//	None               -                                  -                 -
//	ScaleUp            C := D                             -                 StatefulSet follows
//	StartDecommission  B := victim (with precondition)    Decommission      requeue after poll
//	AdoptDrain         B := victim (with precondition)    -                 requeue after poll
//	SkipAbsentBroker   C := C-1 (with precondition)       -                 StatefulSet follows
//	Decommission       -                                  Decommission(B)   requeue after poll
//	WaitForDrain       -                                  -                 requeue after poll
//	FinishDecommission C := C-1, B := nil                 -                 StatefulSet follows
//	Recommission       -                                  Recommission(B)   requeue after poll
//	CancelDecommission B := nil                           -                 -
//	WaitForAdminAPI    Degraded                           -                 error: backoff
//	WaitForBrokerID    Degraded                           -                 requeue after poll
//	WaitForHealthyCluster Degraded (ClusterUnhealthy)     -                 requeue after poll
//	WaitForRemovedPod  -                                  -                 requeue after poll
//
// The rollout's steps are in rolling.go.

// step is one decision.
type step struct {
	Kind stepKind
	// Broker is the node ID the step acts on, when it acts on one.
	Broker *int32
	// Reason explains the decision in a sentence, for logs and events.
	Reason string
	// Restart is the record a step that starts a broker's restart writes to status.restart.
	Restart *v1alpha1.BrokerRestart
}

// transition is one row of the table: in State, when When holds, take Then.
type transition struct {
	State string
	When  string
	match func(o observation) bool
	Then  stepKind
}

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

// decide names the one step to take for o: a decommission under way goes first, then a
// restart under way, then scaling, then the next restart of a rollout (rolling.go).
func decide(o observation) step {
	if o.Decommissioning == nil && o.Rollout.Restart != nil {
		return decideRollout(o, restartTransitions)
	}
	if s := decideScale(o); s.Kind != stepNone {
		return s
	}
	return decideRollout(o, rolloutTransitions)
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
