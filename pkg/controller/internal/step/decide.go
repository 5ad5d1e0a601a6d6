package step

import (
	corev1 "k8s.io/api/core/v1"
	"time"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// The pure decision. decide takes an observation and names one step: it makes no call, reads
// nothing else and writes nothing. Its tables are in scaling.go (scaling) and rollout.go (the
// rollout); what each step then writes, calls and relies on is its row in the step table
// (table.go), which the controller's runner (pkg/controller/runner.go) runs. The compiler keeps
// the rule: this package imports no client, and the packages that read and write
// (internal/brokers, internal/objects, pkg/controller) import it, never the other way.

// membership is what the admin API says about one broker.
type Membership int

const (
	// memberUnknown: the admin API was not asked, or did not answer.
	MemberUnknown Membership = iota
	MemberActive
	MemberDraining
	// memberAbsent: the admin API answered and does not list the broker: it never joined, or
	// its decommission has finished and it left.
	MemberAbsent
	// memberUnidentified: the admin API answered, but which broker the pod runs cannot be told
	// (its node_config did not answer, and nothing else names it). Unknown is not absent: the
	// scale-down waits.
	MemberUnidentified
)

func (m Membership) String() string {
	return [...]string{"unknown", "active", "draining", "absent", "unidentified"}[m]
}

// observation is everything a scaling decision rests on.
type Observation struct {
	// Cluster is the BrokerCluster's name, which names its pods in messages.
	Cluster string
	Desired int32 // D
	Current int32 // C
	// Decommissioning is B, nil when no broker is being decommissioned.
	Decommissioning *int32
	// Target is the admin API's view of broker B.
	Target Membership
	// Victim is the broker run by the pod with the highest ordinal, C-1: the next to go.
	Victim Victim
	// AdminUnavailable: the admin API was asked (to map pods to brokers) and did not answer.
	AdminUnavailable bool
	// AdminCheck is true unless Guards.SkipAdminCheck.
	AdminCheck bool
	// Health is the brokers' health_overview, read when a step behind the health gate may be
	// next (health.go).
	Health Health
	// SkipHealthGate is spec.unsafeSkipHealthGate.
	SkipHealthGate bool
	// Rollout is what a rollout decision rests on (ObserveRollout, rollout.go).
	Rollout Rollout
	// Ghosts are the ghost brokers the admin API showed (ghosts.go); nil when it was not asked.
	Ghosts []int32
	// Leaked are the brokers left in maintenance mode with nothing of the operator's about them
	// (leaked.go); nil when the admin API was not asked.
	Leaked []LeakedMaintenance
	// Placement is what the scale-down pre-flight rests on (preflight.go), read while a
	// decommission may be next.
	Placement Placement
	// LostNodes are the brokers whose volume's node is gone, and what their recovery rests on
	// (lostnodes.go).
	LostNodes LostNodes
	// Leftovers counts the pods at ordinals C and above, and the volume claims a scale-down
	// condemned at ordinals C to D-1: what brokers that have left leave behind until the
	// StatefulSet and the garbage collector have removed it (pkg/controller/leftovers.go).
	Leftovers int
	// Window is what spec.maintenanceWindows say now (windows.go).
	Window Window
	// Elsewhere are the cluster's other pools, when it has pools (pools.go): the observation is
	// then of the one pool PlanPools picked, and Cluster names that pool's StatefulSet.
	Elsewhere Elsewhere
}

// victim is what is known of the broker at ordinal C-1.
type Victim struct {
	Ordinal int32
	// ID is the broker's node ID; IDKnown says whether it is known at all, from the admin API's
	// list or, for a broker the list no longer has, from its pod's node-id annotation.
	ID      int32
	IDKnown bool
	Status  Membership
}

// maintenance is what the admin API says about one broker's maintenance mode
// (GET /v1/brokers/{id}, maintenance_status: draining and finished).
type Maintenance int

const (
	MaintenanceUnknown Maintenance = iota
	MaintenanceOff
	// maintenanceDraining: on, leadership still moving away.
	MaintenanceDraining
	// maintenanceDrained: on, and the drain has finished.
	MaintenanceDrained
)

func (m Maintenance) String() string {
	return [...]string{"unknown", "off", "draining", "drained"}[m]
}

// rollout is what a rollout decision rests on.
type Rollout struct {
	// Restart is R, nil when no broker is being restarted.
	Restart *v1alpha1.BrokerRestart
	// Maintenance is the admin API's view of R's broker.
	Maintenance Maintenance
	// OldPodGone: no pod of R's ordinal has the UID recorded in R.
	OldPodGone bool
	// OldPodDeleting: the pod recorded in R is there and being deleted.
	OldPodDeleting bool
	// StuckTerminating says, while OldPodDeleting, that the pod has outlived its grace period
	// by TerminatingGrace, and where it runs: its kubelet is not finishing the delete.
	StuckTerminating string
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
	Next Victim
	// NextPod and NextPodUID name that pod.
	NextPod, NextPodUID string
	// Revision is the current template's hash; Updated counts the pods below C made from it.
	Revision string
	Updated  int32
	// Recovery is what R's broker, once back, says of its recovery (post_restart_probe).
	Recovery Recovery
	// Order are the outdated pods below C, in the order the rollout takes them: highest ordinal
	// first. Next is the first of them whose restart risks nothing (risk.go), or the first.
	Order []PodAt
	// Held names the outdated brokers passed over because their restart would put partitions at
	// risk, and why; empty when none was.
	Held string
	// Risk is what the pre_restart_probe of the broker about to restart (Next, or R's before
	// its pod is deleted) says, when a step behind the gate may be next.
	Risk Risk
	// Stuck are the pods below C that cannot come up by themselves (brokerpod.Stuck), highest
	// ordinal first.
	Stuck []StuckPod
	// NotReadyPod is the highest-ordinal pod below C that is missing or not Ready, and NotReady
	// says why, from its own status; both empty when every pod is Ready.
	NotReadyPod, NotReady string
	// Upgrade is what the version check rests on (upgrade.go).
	Upgrade Upgrade
	// PendingProperties are the cluster properties not in effect on every broker yet
	// (status.clusterConfig.pendingRestart), named by a restart for a cluster property.
	PendingProperties []string
	// SuperuserHold says why the superuser of spec.adminAPI.auth is not in place (SecurityReady
	// not True) while the template requires Kafka SASL that an outdated pod's broker does not:
	// its restart would turn SASL on with no superuser to log in as. Empty otherwise.
	SuperuserHold string
}

// Recovery is what a restarted broker's own GET /v1/broker/post_restart_probe says: how much of
// its load it has reclaimed (load_reclaimed_pc, the share of the in-sync replicas it hosts that
// have caught up). A restart finishes only once it reaches Wanted, as Redpanda's operator waits
// (redpanda-data/redpanda-operator operator/internal/probes/broker.go,
// DefaultPostRestartCaughtUpPercent).
type Recovery struct {
	// Asked: the probe was asked (R's broker is back).
	Asked bool
	// NoProbe: the broker answered 404, it predates the probe (Redpanda before 25.1); being back
	// is then enough, as before.
	NoProbe bool
	// Reclaimed is load_reclaimed_pc, -1 when the probe did not answer (Problem says why): the
	// restart then waits, as Redpanda's operator fails closed.
	Reclaimed int
	Problem   string
	// Wanted is spec.rollout.recoveredPercent.
	Wanted int
	// Waited is how long the broker has been back without reaching Wanted; Overdue once that is
	// longer than Timeout (spec.rollout.recoveryTimeout).
	Waited, Timeout time.Duration
	Overdue         bool
}

// Done reports whether the restart may finish as far as recovery goes.
func (r Recovery) Done() bool { return !r.Asked || r.NoProbe || r.Reclaimed >= r.Wanted }

// StuckPod is a pod that cannot come up by itself: a container waiting in CrashLoopBackOff,
// ImagePullBackOff, ErrImagePull, CreateContainerConfigError or InvalidImageName, or the pod
// unschedulable.
type StuckPod struct {
	Ordinal  int32
	Pod, UID string
	// Why says what keeps it from coming up, from its own status.
	Why string
	// Unschedulable: the scheduler finds no node for it, so a fix lies in its placement or the
	// nodes, not in its image or Secrets.
	Unschedulable bool
	// Outdated: made from another template than the current one, which may let it start.
	Outdated bool
	// NodeID is the broker ID recorded on the pod, when IDKnown.
	NodeID  int32
	IDKnown bool
}

// PodAt is one pod of the cluster: its ordinal, name and UID, and, for an outdated pod, what its
// restart applies (changeOf).
type PodAt struct {
	Ordinal  int32
	Pod, UID string
	// Image is the image the pod runs. Template: it was made from another template; Fields name
	// the template's fields it does not have (objects.TemplateChanges, filled by the controller).
	Image    string
	Template bool
	Fields   []string
	// Config: its broker waits for a restart for a cluster property.
	Config bool
	// Requested: its restart was asked for (brokerpod.AnnotationRestartRequested), by RequestedBy.
	Requested   bool
	RequestedBy string
	// ID is the broker ID recorded on the pod, when IDKnown.
	ID      int32
	IDKnown bool
}

// PodRef names one pod by name and UID, for a step that deletes a pod other than R's.
type PodRef struct {
	Name, UID string
}

// step is one decision.
type Step struct {
	Kind Kind
	// Broker is the node ID the step acts on, when it acts on one.
	Broker *int32
	// Reason explains the decision in a sentence, for logs and events.
	Reason string
	// Restart is the record a step that starts a broker's restart writes to status.restart.
	Restart *v1alpha1.BrokerRestart
	// Pod is the pod a ReplaceStuckPod step deletes.
	Pod *PodRef
	// Upgrade is the version check's observation, for the fresh check of FactSupportedVersion.
	Upgrade Upgrade
	// Lost is the broker a RecoverLostBroker step brings back.
	Lost *LostBroker
	// Overdue: a wait that has lasted longer than it should (WaitForRecovery past
	// spec.rollout.recoveryTimeout); the cluster is Degraded while it lasts.
	Overdue bool
	// AnyTime: the step is a restart asked for on its pod by someone other than the operator,
	// which no maintenance window holds (windows.go).
	AnyTime bool
	// WindowInvalid: a WaitForMaintenanceWindow whose windows cannot be read; the cluster is
	// Degraded (InvalidMaintenanceWindow) while it lasts.
	WindowInvalid bool
}

// transition is one row of the table: in State, when When holds, take Then.
type Transition struct {
	State string
	When  string
	match func(o Observation) bool
	Then  Kind
}

// decide names the one step to take for o: a decommission under way goes first, then a
// restart under way, then scaling (scaling.go), then the next restart of a rollout
// (rollout.go).
func Decide(o Observation) Step {
	return holdForWindow(decide(o), o)
}

func decide(o Observation) Step {
	if s, ok := clearLeaked(o); ok {
		return s
	}
	if o.Decommissioning == nil && o.Rollout.Restart != nil {
		return decideRollout(o, restartTransitions)
	}
	if s := decideScale(o); s.Kind != None {
		return s
	}
	return decideRollout(o, rolloutTransitions)
}

// gateClosed reports whether the health gate holds the next step back.
func gateClosed(o Observation) bool { return !o.SkipHealthGate && !o.Health.Healthy() }

// BehindHealthGate reports whether the next step may be one the health gate guards: a
// decommission or a restart about to start. Only then is health_overview asked.
func BehindHealthGate(o Observation) bool {
	if o.Decommissioning != nil {
		return false
	}
	if o.Rollout.Restart != nil {
		return beforeDelete(o) // the restart's facts (table.go)
	}
	return o.Current > o.Desired ||
		(o.Current == o.Desired && o.Rollout.Outdated > 0 && o.Rollout.AllReady)
}

// NeedsAdmin reports whether a decision needs the brokers' view: a scale-down or a rollout is
// pending or under way, ghost brokers were reported, or a ready pod's broker ID is not recorded
// yet. A steady cluster makes no admin calls.
func NeedsAdmin(bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod, r Rollout) bool {
	st := bc.Status
	if st.DecommissioningBroker != nil || st.CurrentReplicas > bc.Spec.Replicas ||
		r.Restart != nil || r.Outdated > 0 || len(st.GhostBrokers) > 0 {
		return true
	}
	for _, p := range pods {
		if _, ok := brokerpod.NodeID(p); !ok && brokerpod.IsReady(p) {
			return true
		}
	}
	return false
}
