package step

import "fmt"

// The step table: what each step writes, calls and relies on, one row a step. decide (decide.go)
// names the step; the runner (pkg/controller/runner.go) runs its row. The rule the table carries: every
// irreversible step checks, right before its call, the facts it relies on. An irreversible step
// takes capacity away: it deletes a broker's pod (or its volume claim), turns maintenance mode
// on, decommissions, or lowers the StatefulSet's replicas (a status write that lowers C, which the StatefulSet then
// follows). Right before that call or write, in the same reconcile and after every other call
// and write of the step (a failed call being retried included), the runner reads each fact the
// row names afresh (internal/brokers/facts.go): from the admin API, and the pod from the apiserver. If one does
// not hold, the step is not taken; the cluster is Degraded (ClusterUnhealthy) naming the fact,
// and the next reconcile decides again.
//
//	step                     status write (precondition)     call                order   polls irreversible facts
//	None                     -                               -                   -       no    -            -
//	ScaleUp                  C := D                          -                   -       no    -            -
//	StartDecommission        B := victim (yes)               decommission        after   yes   call         window, gate, no other drain, fits
//	AdoptDrain               B := victim (yes)               -                   -       yes   -            -
//	SkipAbsentBroker         C := C-1 (yes)                  -                   -       no    write        broker left
//	Decommission             -                               decommission(B)     before  yes   call         window, gate, no other drain, fits
//	WaitForDrain             drain progress                  -                   -       yes   -            -
//	FinishDecommission       C := C-1, B := nil              -                   -       no    write        broker left
//	Recommission             -                               recommission(B)     before  yes   -            -
//	CancelDecommission       B := nil                        -                   -       no    -            -
//	WaitForAdminAPI          Degraded                        -                   -       error -            -
//	WaitForBrokerID          Degraded                        -                   -       yes   -            -
//	WaitForHealthyCluster    Degraded (ClusterUnhealthy)     -                   -       yes   -            -
//	WaitForRemovedPod        -                               -                   -       yes   -            -
//	WaitForReadyBrokers      -                               -                   -       yes   -            -
//	StartRestart             R := next, Draining (yes)       maintenance on      after   yes   call         window, version, gate, others up, pod Ready
//	RestartSingleBroker      R := next, Restarting (yes)     delete pod (UID)    after   yes   call         window, version, gate, pod Ready
//	EnableMaintenance        -                               maintenance on      before  yes   call         window, version, gate, others up, pod Ready
//	WaitForLeadershipDrain   -                               -                   -       yes   -            -
//	RestartPod               R.step := Restarting (yes)      delete pod (UID)    after   yes   call         version, gate, others up, pod Ready
//	DeletePod                -                               delete pod (UID)    before  yes   call         version, gate, others up, pod Ready
//	SuspendRestart           R.step := Draining (yes)        maintenance off     after   yes   -            -
//	WaitForRestart           -                               -                   -       yes   -            -
//	FinishRestart            R := nil (yes)                  maintenance off     before  yes   -            -
//	AdoptReplacedPod         R.step := Restarting (yes)      -                   -       yes   -            -
//	ReplaceStuckPod          -                               delete pod (UID)    before  yes   call         version, others up, no other drain
//	WaitForStuckPod          Degraded (BrokerPodCannotStart) -                   -       yes   -            -
//	WaitForRecovery          Degraded once overdue           -                   -       yes   -            -
//	ReleaseMaintenance       Degraded (BrokerPodCannotStart) maintenance off     before  yes   -            -
//	ClearLeakedMaintenance   -                               maintenance off     before  yes   -            -
//	HoldVersionChange        Degraded (UnsupportedVersion-   -                   -       yes   -            -
//	                         Change)
//	HoldForSuperuser         Degraded (SASLWaitsFor-         -                   -       yes   -            -
//	                         Superuser)
//	HoldScaleDown            B := nil, Degraded (ScaleDown-  -                   -       yes   -            -
//	                         WouldNotFit)
//	WaitForMaintenanceWindow next window opening             -                   -       window -           -
//	WaitForJoiningBrokers    Scaling (the pod joining)       -                   -       yes   -            -
//	RecoverLostBroker        -                               retain volume,      before  yes   call         window, node gone, others up, no other drain
//	                                                         delete claim, pod
//
// "window" is FactInsideWindow: now is inside one of spec.maintenanceWindows, or none is set
// (windows.go). Only the steps that start taking a broker away carry it; what follows them
// (the restarted pod's delete, maintenance off, the drain) finishes the broker under way. A
// restart asked for on the pod by a drain or a person (Step.AnyTime) is not held. The wait
// polls when the next window opens, not every DrainPollInterval.
//
// "fits" is FactDataFits: the brokers that would remain once spec.replicas is reached can hold
// the data (preflight.go); a decommission that would not fit is held (HoldScaleDown), not
// waited on as for a healthy cluster.
//
// "version" is FactSupportedVersion: a restart makes its broker come back on the current
// template's image, so every step that restarts one checks that Redpanda can go to that version
// (upgrade.go); a fact that does not hold there holds the rollout (WaitFor) rather than waiting
// for a healthy cluster.
//
// A ghost broker's decommission (ghosts.go) rides on a waiting step, after its status write,
// and relies on "no other drain" (the ghost itself keeps the health gate closed).
//
// A restart whose maintenance mode is already on when a fact stops holding (another broker went
// down, the gate closed, its own pod is not Ready) is suspended, not held: SuspendRestart turns
// maintenance mode off again and R goes back to Draining, so that while the cluster is short of
// a broker every live broker may lead partitions again. Once the facts hold, the next reconcile
// turns maintenance mode on again (EnableMaintenance, facts read afresh) and the restart goes on.
// A pod already being deleted is past that point: the restart under way is not interrupted.
//
// A growth of the volumes (volumes.go) is no row: patching a claim to a larger size and making
// the StatefulSet again with its pods orphaned take no capacity away. The one thing it needs
// that does, a pod's restart for its file system, is asked for with the restart-requested
// annotation and taken through the rows above.
//
// A cluster with pools (pools.go) is one observation of the pool PlanPools picks: every row
// acts on that pool's broker, and the facts count every pool's brokers. WaitForJoiningBrokers
// holds a pool's shrink while another pool's broker has not joined yet.
//
// RecoverLostBroker (lostnodes.go) deletes the claim of a broker whose volume's node is gone:
// its data is lost for good, so right before the volume's patch and the deletes it reads afresh
// that the node is still gone and the claim still the one seen (FactNodeGone, from the
// apiserver), and that every other broker is up and none draining (from the admin API).

// fact is something an irreversible step relies on; checkFacts (internal/brokers/facts.go) reads it afresh
// right before the step. Each reads as what the step needs: "it needs <fact>, but <why not>".
type Fact string

const (
	// factHealthGate: GET /v1/cluster/health_overview shows a healthy cluster (health.go), or
	// spec.unsafeSkipHealthGate is set.
	FactHealthGate Fact = "an open health gate"
	// FactRestartSafe: the restarting broker's own GET /v1/broker/pre_restart_probe reports no
	// partition it would make unavailable, lose acks=1 data on or stop acks=all produce on
	// (nor, with spec.rollout.blockRF1Offline, take offline at RF=1: risk.go); a broker before
	// Redpanda 25.1 (404) falls back to FactHealthGate. Waived, like the gate, by
	// spec.unsafeSkipHealthGate.
	FactRestartSafe Fact = "its restart putting no partition at risk"
	// factOthersUp: GET /v1/brokers lists every member but the step's broker as alive. Never
	// waived: spec.unsafeSkipHealthGate opens the health gate, not this.
	FactOthersUp Fact = "every other broker up"
	// factPodReady: the restart's pod, read from the apiserver, has the recorded UID, is Ready
	// and is not being deleted.
	FactPodReady Fact = "its pod Ready"
	// factNoOtherDrain: GET /v1/brokers lists no other broker draining or in maintenance.
	FactNoOtherDrain Fact = "no other broker draining or in maintenance"
	// factBrokerLeft: GET /v1/brokers does not list the step's broker as a member any more.
	FactBrokerLeft Fact = "the broker gone from the cluster"
	// FactSupportedVersion: the version the restarted pod comes back with is one Redpanda can go
	// to from every broker's (upgrade.go): the pods' images from the step's observation, the
	// brokers' reports from GET /v1/brokers and, for a rollback, GET /v1/features, read afresh.
	// Never waived.
	FactSupportedVersion Fact = "a change of version Redpanda supports"
	// FactDataFits: the brokers that would remain once spec.replicas is reached can hold the
	// data (preflight.go): no partition has more replicas than they are, with rack awareness
	// they keep the racks the replicas need, and their disks take the leaving brokers' data;
	// read from GET /v1/cluster/partitions and GET /v1/brokers (and the cluster's storage
	// properties). Redpanda before 23.3 (404) is not checked.
	FactDataFits Fact = "the brokers that would remain able to hold the data"
	// FactInsideWindow: now, read from the clock right before the call, is inside one of
	// spec.maintenanceWindows, or none is set (windows.go). Waived for a restart asked for on
	// the pod by anyone but the operator (Step.AnyTime).
	FactInsideWindow Fact = "a maintenance window open"
	// FactNodeGone: the lost broker's claim, read from the apiserver, is the one seen (same
	// UID), still bound to the same volume, which is still pinned to the same node, and that
	// node's GET answers NotFound (objects.ReadVolumeNode). A node that exists, Ready or not,
	// fails it.
	FactNodeGone Fact = "its volume's node gone"
)

// WaitFor is the step a reconcile takes when fact f does not hold right before an irreversible
// step: a change of version off Redpanda's path holds the rollout; anything else waits for a
// healthy cluster.
func WaitFor(f Fact) Kind {
	switch f {
	case FactSupportedVersion:
		return HoldVersionChange
	case FactDataFits:
		return HoldScaleDown
	case FactInsideWindow:
		return WaitForMaintenanceWindow
	}
	return WaitForHealthyCluster
}

// adminCall is the one call a step makes.
type Call int

const (
	CallNone Call = iota
	CallDecommission
	CallRecommission
	CallMaintenanceOn
	CallMaintenanceOff
	CallDeletePod
	// CallDeleteStuckPod deletes the step's Pod by its UID.
	CallDeleteStuckPod
	// CallRecoverLostBroker sets the lost broker's volume's reclaim policy to Retain, then
	// deletes its claim and its pod, each by UID.
	CallRecoverLostBroker
)

// callOrder says whether a step's call comes before its status write (which then records its
// outcome) or after it (which is then the record that it was made).
type Order int

const (
	CallBeforeWrite Order = iota
	CallAfterWrite
)

// irreversibility says what part of a step takes capacity away, if any.
type Irreversibility int

const (
	Reversible Irreversibility = iota
	IrreversibleCall
	IrreversibleWrite
)

// stepRow is one row of the step table.
type Row struct {
	// Precondition: the status write carries the BrokerCluster's resourceVersion, so a decision
	// made on a stale copy gets a Conflict (unless Guards.SkipPrecondition).
	Precondition bool
	Call         Call
	Order        Order
	// Polls: the step is looked at again after Config.DrainPollInterval.
	Polls bool
	// PollsWindow: the step is looked at again when the next maintenance window opens.
	PollsWindow  bool
	Irreversible Irreversibility
	// Facts are read afresh right before the irreversible call or write, and must all hold.
	Facts []Fact
	// AdminCheckAvoidsCall: the step exists because the admin check (the seed's option D) saw
	// that the broker had already left or was already draining, so a second decommission call
	// was avoided; guard_fired_total{guard="admin_check"} counts it.
	AdminCheckAvoidsCall bool
	// Backoff: after its status write the reconcile returns an error, so that the queue backs
	// off (the "error" of the polls column).
	Backoff bool
	// ReportsDrain: the status write carries how the drain goes (DecommissionStatus), and a
	// stalled drain sets Degraded DrainStalled.
	ReportsDrain bool
}

var decommissionFacts = []Fact{FactInsideWindow, FactDataFits, FactHealthGate, FactNoOtherDrain}

// startRestartFacts are the facts of the steps that start a broker's restart; restartFacts those
// of the steps that go on with one, which no window holds.
var (
	startRestartFacts = []Fact{FactInsideWindow, FactSupportedVersion, FactRestartSafe, FactOthersUp, FactPodReady}
	restartFacts      = []Fact{FactSupportedVersion, FactRestartSafe, FactOthersUp, FactPodReady}
)

// steps is the step table; a step missing from it writes status and calls nothing.
var Rows = map[Kind]Row{
	ScaleUp:                {},
	StartDecommission:      {Precondition: true, Call: CallDecommission, Order: CallAfterWrite, Polls: true, Irreversible: IrreversibleCall, Facts: decommissionFacts},
	AdoptDrain:             {Precondition: true, Polls: true, AdminCheckAvoidsCall: true},
	SkipAbsentBroker:       {Precondition: true, Irreversible: IrreversibleWrite, Facts: []Fact{FactBrokerLeft}, AdminCheckAvoidsCall: true},
	Decommission:           {Call: CallDecommission, Order: CallBeforeWrite, Polls: true, Irreversible: IrreversibleCall, Facts: decommissionFacts},
	WaitForDrain:           {Polls: true, ReportsDrain: true},
	FinishDecommission:     {Irreversible: IrreversibleWrite, Facts: []Fact{FactBrokerLeft}},
	Recommission:           {Call: CallRecommission, Order: CallBeforeWrite, Polls: true},
	CancelDecommission:     {},
	WaitForAdminAPI:        {Backoff: true},
	WaitForBrokerID:        {Polls: true},
	WaitForHealthyCluster:  {Polls: true},
	WaitForRemovedPod:      {Polls: true},
	WaitForReadyBrokers:    {Polls: true},
	StartRestart:           {Precondition: true, Call: CallMaintenanceOn, Order: CallAfterWrite, Polls: true, Irreversible: IrreversibleCall, Facts: startRestartFacts},
	RestartSingleBroker:    {Precondition: true, Call: CallDeletePod, Order: CallAfterWrite, Polls: true, Irreversible: IrreversibleCall, Facts: []Fact{FactInsideWindow, FactSupportedVersion, FactRestartSafe, FactPodReady}},
	EnableMaintenance:      {Call: CallMaintenanceOn, Order: CallBeforeWrite, Polls: true, Irreversible: IrreversibleCall, Facts: startRestartFacts},
	WaitForLeadershipDrain: {Polls: true},
	RestartPod:             {Precondition: true, Call: CallDeletePod, Order: CallAfterWrite, Polls: true, Irreversible: IrreversibleCall, Facts: restartFacts},
	DeletePod:              {Call: CallDeletePod, Order: CallBeforeWrite, Polls: true, Irreversible: IrreversibleCall, Facts: restartFacts},
	SuspendRestart:         {Precondition: true, Call: CallMaintenanceOff, Order: CallAfterWrite, Polls: true},
	WaitForRestart:         {Polls: true},
	// A stale R must not clear the record of the next broker's restart.
	FinishRestart: {Precondition: true, Call: CallMaintenanceOff, Order: CallBeforeWrite, Polls: true},
	// The pod it replaced was deleted by someone else: nothing to call, R.step := Restarting.
	AdoptReplacedPod: {Precondition: true, Polls: true},
	// The pod is already unavailable, so deleting it takes nothing more away; the others must
	// be up and none draining, as for any restart. A cluster of one has no others: those facts
	// are not read (internal/brokers/facts.go), as its only broker cannot answer.
	ReplaceStuckPod: {Call: CallDeleteStuckPod, Order: CallBeforeWrite, Polls: true, Irreversible: IrreversibleCall, Facts: []Fact{FactSupportedVersion, FactOthersUp, FactNoOtherDrain}},
	WaitForStuckPod: {Polls: true},
	// A change of version off Redpanda's path: nothing restarts until spec.image changes.
	HoldVersionChange: {Polls: true},
	// SASL turned on before the superuser is in place: nothing restarts until SecurityReady.
	HoldForSuperuser: {Polls: true},
	// The brokers that would remain cannot hold the data: nothing is decommissioned, B is
	// cleared (its broker is still an active member), until spec.replicas or the topics change.
	HoldScaleDown: {Polls: true},
	// Nothing called until the next window opens; the runner looks again then.
	WaitForMaintenanceWindow: {PollsWindow: true},
	// A pool's brokers leave only once every other pool's have joined; nothing is called.
	WaitForJoiningBrokers: {Polls: true},
	WaitForRecovery:       {Polls: true},
	// Maintenance off gives leadership back; it takes nothing away.
	ReleaseMaintenance: {Call: CallMaintenanceOff, Order: CallBeforeWrite, Polls: true},
	// A flag nothing of the operator's is about (leaked.go): off gives leadership back.
	ClearLeakedMaintenance: {Call: CallMaintenanceOff, Order: CallBeforeWrite, Polls: true},
	// A ghost broker's decommission (GhostToDecommission) follows the status write of the step
	// decided, after that step's own call; the ghost itself keeps the health gate closed.
	// Deleting the claim of a broker whose node is gone loses its data for good: the other
	// brokers must be up (so every partition keeps its other replicas) and none draining.
	RecoverLostBroker:       {Call: CallRecoverLostBroker, Order: CallBeforeWrite, Polls: true, Irreversible: IrreversibleCall, Facts: []Fact{FactInsideWindow, FactNodeGone, FactOthersUp, FactNoOtherDrain}},
	DecommissionGhostBroker: {Call: CallDecommission, Order: CallAfterWrite, Irreversible: IrreversibleCall, Facts: []Fact{FactNoOtherDrain}},
}

// FactError says which fact did not hold, and why.
type FactError struct {
	Fact Fact
	Why  string
}

func (e *FactError) Error() string { return fmt.Sprintf("it needs %s, but %s", e.Fact, e.Why) }
