package step

import "fmt"

// Ghost brokers: members the admin API lists as active but not alive that no pod of this
// cluster runs (internal/brokers/ghosts.go finds them). They are decommissioned only when
// spec.decommissionGhostBrokers is set, through the DecommissionGhostBroker row.

// GhostToDecommission picks the ghost broker to decommission in this reconcile, after step s:
// only with spec.decommissionGhostBrokers set (enabled), only while nothing else is under way (a
// ghost keeps the health gate closed, so waiting on it counts as nothing under way), one per
// reconcile, lowest node ID first. A ghost that is draining is no longer listed as active, so it
// is never picked twice.
func GhostToDecommission(enabled bool, s Step, o Observation) *int32 {
	if !enabled || len(o.Ghosts) == 0 {
		return nil
	}
	if s.Kind != None && s.Kind != WaitForHealthyCluster && s.Kind != WaitForReadyBrokers {
		return nil
	}
	id := o.Ghosts[0]
	return &id
}

// GhostReason is the reason of a ghost broker's decommission.
func GhostReason(id int32) string {
	return fmt.Sprintf("decommissioning ghost broker %d: Redpanda lists it as an active member that is not alive, no pod of this cluster runs it, and spec.decommissionGhostBrokers is set", id)
}
