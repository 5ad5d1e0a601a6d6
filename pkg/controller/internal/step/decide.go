package controller

import "github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"

// The pure decision. decide takes an observation and names one step: it makes no call, reads
// nothing else and writes nothing. Its tables are in decide_scale.go (scaling) and
// decide_rollout.go (the rollout); what each step then writes, calls and relies on is its row
// in the step table (steps.go), which act (sync.go) runs. The decide files use only the step
// table's names (steps.go) and the health report (health.go), both pure; the files that read
// and write (sync.go, facts.go, rolling.go, ...) call into them, never the other way.

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
	// Cluster is the BrokerCluster's name, which names its pods in messages.
	Cluster string
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
	// Rollout is what a rollout decision rests on (observeRollout, rolling.go).
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

// Steps of scaling.
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

// maintenance is what the admin API says about one broker's maintenance mode
// (GET /v1/brokers/{id}, maintenance_status: draining and finished).
type maintenance int

const (
	maintenanceUnknown maintenance = iota
	maintenanceOff
	// maintenanceDraining: on, leadership still moving away.
	maintenanceDraining
	// maintenanceDrained: on, and the drain has finished.
	maintenanceDrained
)

func (m maintenance) String() string {
	return [...]string{"unknown", "off", "draining", "drained"}[m]
}

// rollout is what a rollout decision rests on.
type rollout struct {
	// Restart is R, nil when no broker is being restarted.
	Restart *v1alpha1.BrokerRestart
	// Maintenance is the admin API's view of R's broker.
	Maintenance maintenance
	// OldPodGone: no pod of R's ordinal has the UID recorded in R.
	OldPodGone bool
	// OldPodDeleting: the pod recorded in R is there and being deleted.
	OldPodDeleting bool
	// PodReady: the pod recorded in R is there, Ready and not being deleted.
	PodReady bool
	// OthersUp: the admin API lists every member but R's broker as alive.
	OthersUp bool
	// Back: a pod of R's ordinal with another UID is Ready, and the admin API lists R's broker
	// as an alive, active member.
	Back bool
	// Outdated counts the pods below C made from another template, or whose broker waits for a
	// restart for a cluster property.
	Outdated int
	// AllReady: every pod below C exists and is Ready.
	AllReady bool
	// Next is the broker of the highest-ordinal outdated pod, the next to restart.
	Next victim
	// NextPod and NextPodUID name that pod.
	NextPod, NextPodUID string
	// Revision is the current template's hash; Updated counts the pods below C made from it.
	Revision string
	Updated  int32
}

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

// Steps of the rollout.
const (
	stepWaitHealthy       stepKind = "WaitForHealthyCluster"
	stepWaitPods          stepKind = "WaitForReadyBrokers"
	stepStartRestart      stepKind = "StartRestart"
	stepRestartAlone      stepKind = "RestartSingleBroker"
	stepEnableMaintenance stepKind = "EnableMaintenance"
	stepWaitLeadership    stepKind = "WaitForLeadershipDrain"
	stepRestartPod        stepKind = "RestartPod"
	stepDeletePod         stepKind = "DeletePod"
	stepSuspendRestart    stepKind = "SuspendRestart"
	stepWaitRestart       stepKind = "WaitForRestart"
	stepFinishRestart     stepKind = "FinishRestart"
)

// decide names the one step to take for o: a decommission under way goes first, then a
// restart under way, then scaling (decide_scale.go), then the next restart of a rollout
// (decide_rollout.go).
func decide(o observation) step {
	if o.Decommissioning == nil && o.Rollout.Restart != nil {
		return decideRollout(o, restartTransitions)
	}
	if s := decideScale(o); s.Kind != stepNone {
		return s
	}
	return decideRollout(o, rolloutTransitions)
}

// gateClosed reports whether the health gate holds the next step back.
func gateClosed(o observation) bool { return !o.SkipHealthGate && !o.Health.healthy() }
