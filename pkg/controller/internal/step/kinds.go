package step

// Kind names what a reconcile does: one row of the step table (table.go).
type Kind string

// Steps of scaling (scaling.go).
const (
	None               Kind = "None"
	ScaleUp            Kind = "ScaleUp"
	StartDecommission  Kind = "StartDecommission"
	AdoptDrain         Kind = "AdoptDrain"
	SkipAbsentBroker   Kind = "SkipAbsentBroker"
	Decommission       Kind = "Decommission"
	WaitForDrain       Kind = "WaitForDrain"
	FinishDecommission Kind = "FinishDecommission"
	Recommission       Kind = "Recommission"
	CancelDecommission Kind = "CancelDecommission"
	WaitForAdminAPI    Kind = "WaitForAdminAPI"
	WaitForBrokerID    Kind = "WaitForBrokerID"
	WaitForRemovedPod  Kind = "WaitForRemovedPod"
	// HoldScaleDown: the brokers that would remain cannot hold the data (preflight.go); nothing
	// is decommissioned, Degraded (ScaleDownWouldNotFit) says why, until spec.replicas or the
	// topics change.
	HoldScaleDown Kind = "HoldScaleDown"
	// WaitForJoiningBrokers: a pool's brokers leave only once every other pool's brokers have
	// joined (pools.go); the Scaling condition names the pod still joining.
	WaitForJoiningBrokers Kind = "WaitForJoiningBrokers"
)

// Steps of the rollout (rollout.go).
const (
	WaitForHealthyCluster  Kind = "WaitForHealthyCluster"
	WaitForReadyBrokers    Kind = "WaitForReadyBrokers"
	StartRestart           Kind = "StartRestart"
	RestartSingleBroker    Kind = "RestartSingleBroker"
	EnableMaintenance      Kind = "EnableMaintenance"
	WaitForLeadershipDrain Kind = "WaitForLeadershipDrain"
	RestartPod             Kind = "RestartPod"
	DeletePod              Kind = "DeletePod"
	SuspendRestart         Kind = "SuspendRestart"
	WaitForRestart         Kind = "WaitForRestart"
	FinishRestart          Kind = "FinishRestart"
	// AdoptReplacedPod: R's pod was deleted by someone else (a drain, kubectl delete) while
	// its leadership drained; the restart goes on with the pod that replaces it.
	AdoptReplacedPod Kind = "AdoptReplacedPod"
	// ReplaceStuckPod deletes an outdated pod that cannot come up by itself, so that the
	// StatefulSet makes it again from the current template.
	ReplaceStuckPod Kind = "ReplaceStuckPod"
	// WaitForStuckPod: a pod cannot come up by itself and nothing the operator may do helps;
	// Degraded (BrokerPodCannotStart) names the pod and why.
	WaitForStuckPod Kind = "WaitForStuckPod"
	// WaitForRecovery: R's broker is back but has not reclaimed its load yet
	// (post_restart_probe); the next broker waits for it.
	WaitForRecovery Kind = "WaitForRecovery"
	// ReleaseMaintenance takes R's broker out of maintenance mode while its new pod cannot
	// start: a restart that cannot finish leaves no broker in maintenance.
	ReleaseMaintenance Kind = "ReleaseMaintenance"
	// HoldVersionChange: the rollout changes the brokers' version off Redpanda's upgrade path
	// (upgrade.go); no broker restarts, Degraded (UnsupportedVersionChange) names both versions
	// and the rule, until spec.image changes.
	HoldVersionChange Kind = "HoldVersionChange"
	// HoldForSuperuser: the rollout would restart a broker onto Kafka listeners that require
	// SASL while the superuser of spec.adminAPI.auth is not in place (SecurityReady not True);
	// no broker restarts, Degraded (SASLWaitsForSuperuser) says why, until it is.
	HoldForSuperuser Kind = "HoldForSuperuser"
	// RecoverLostBroker brings back a broker whose volume is pinned to a node that is gone
	// (lostnodes.go): the volume kept (reclaim policy Retain), its claim and pod deleted, so
	// that the StatefulSet makes both anew. Only with spec.nodeLossRecovery.
	RecoverLostBroker Kind = "RecoverLostBroker"
)

// WaitForMaintenanceWindow: a step that would start taking a broker away waits for the next of
// spec.maintenanceWindows (windows.go).
const WaitForMaintenanceWindow Kind = "WaitForMaintenanceWindow"

// DecommissionGhostBroker decommissions a ghost broker (ghosts.go). It follows the status write
// of a waiting step in the same reconcile, rather than being decided on its own.
const DecommissionGhostBroker Kind = "DecommissionGhostBroker"

// Kinds are every step but None, in table order: decisions_total exports each as zero from the
// start, so that dashboards show a rate of 0 rather than no data.
var Kinds = []Kind{
	ScaleUp, StartDecommission, AdoptDrain, SkipAbsentBroker, Decommission,
	WaitForDrain, FinishDecommission, Recommission, CancelDecommission, WaitForAdminAPI, WaitForBrokerID,
	WaitForRemovedPod, WaitForHealthyCluster, WaitForReadyBrokers, StartRestart, RestartSingleBroker,
	EnableMaintenance, WaitForLeadershipDrain, RestartPod, DeletePod, SuspendRestart, WaitForRestart,
	FinishRestart, AdoptReplacedPod, ReplaceStuckPod, WaitForStuckPod, WaitForRecovery, ReleaseMaintenance, ClearLeakedMaintenance, HoldVersionChange, HoldForSuperuser, HoldScaleDown, WaitForJoiningBrokers, WaitForMaintenanceWindow, RecoverLostBroker, DecommissionGhostBroker,
}
