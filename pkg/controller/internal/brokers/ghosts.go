package brokers

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// Ghost brokers: members the admin API lists as active but not alive that no pod of this
// cluster runs. A pod whose volume was lost mid-decommission rejoins with a new node ID and
// leaves its old one behind; a node that died takes its broker with it. Redpanda keeps them as
// members until they are decommissioned, and counts their replicas as missing.
//
// Every reconcile that asks the admin API looks for them; status.ghostBrokers, the GhostBrokers
// condition, a Warning event and the broker_operator_ghost_brokers gauge report them. They are
// decommissioned only when spec.decommissionGhostBrokers is set.

// FindGhosts returns the ghost brokers in v, by node ID. A broker is not a ghost when a pod
// claims it (its node-id annotation names it, its own admin API did, or an unannotated pod that
// could not be asked has its address), when
// its ordinal is below currentReplicas and that pod is missing (the StatefulSet brings it
// back), or when the operator is decommissioning or restarting it.
func FindGhosts(bc *v1alpha1.BrokerCluster, v View, pods map[int]*corev1.Pod) []int32 {
	claimed := map[int]bool{}
	for id := range v.claimedElsewhere() {
		claimed[int(id)] = true
	}
	for _, id := range v.identities {
		if id.Known {
			claimed[int(id.ID)] = true
		}
	}
	for ordinal, p := range pods {
		if id, ok := brokerpod.NodeID(p); ok {
			claimed[int(id)] = true
		} else if b, ok := v.byOrdinal[ordinal]; ok && !v.identities[ordinal].Known {
			// The address is the fallback: a pod whose broker was asked names it, and the
			// other member on its address (a broker lost with its volume) is a ghost.
			claimed[b.NodeID] = true
		}
	}
	if b := bc.Status.DecommissioningBroker; b != nil {
		claimed[int(*b)] = true
	}
	if r := bc.Status.Restart; r != nil {
		claimed[int(r.NodeID)] = true
	}
	var out []int32
	for id, b := range v.byID {
		if b.MembershipStatus != admin.MembershipActive || b.IsAlive || claimed[id] {
			continue
		}
		if ordinal, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, objects.FocusSet(bc)); ok && ordinal < int(bc.Status.CurrentReplicas) && pods[ordinal] == nil {
			continue
		}
		if v.onOtherPoolsPod(b) {
			continue
		}
		out = append(out, int32(id))
	}
	slices.Sort(out)
	return out
}
