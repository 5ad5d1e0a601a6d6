package controller

import (
	"context"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// Ghost brokers: members the admin API lists as active but not alive that no pod of this
// cluster runs. A pod whose volume was lost mid-decommission rejoins with a new node ID and
// leaves its old one behind; a node that died takes its broker with it. Redpanda keeps them as
// members until they are decommissioned, and counts their replicas as missing.
//
// Every reconcile that asks the admin API looks for them; status.ghostBrokers, the GhostBrokers
// condition, a Warning event and the broker_operator_ghost_brokers gauge report them. They are
// decommissioned only when spec.decommissionGhostBrokers is set.

// findGhosts returns the ghost brokers in v, by node ID. A broker is not a ghost when a pod
// claims it (its node-id annotation names it, or an unannotated pod's ordinal maps to it), when
// its ordinal is below currentReplicas and that pod is missing (the StatefulSet brings it
// back), or when the operator is decommissioning or restarting it.
func findGhosts(bc *v1alpha1.BrokerCluster, v brokerView, pods map[int]*corev1.Pod) []int32 {
	claimed := map[int]bool{}
	for _, id := range v.identities {
		if id.Known {
			claimed[int(id.ID)] = true
		}
	}
	for ordinal, p := range pods {
		if id, ok := brokerpod.NodeID(p); ok {
			claimed[int(id)] = true
		} else if b, ok := v.byOrdinal[ordinal]; ok {
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
		if ordinal, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, bc.Name); ok && ordinal < int(bc.Status.CurrentReplicas) && pods[ordinal] == nil {
			continue
		}
		out = append(out, int32(id))
	}
	slices.Sort(out)
	return out
}

// ghostList names ghost brokers for messages.
func ghostList(ids []int32) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(int(id))
	}
	return s
}

// ghostToDecommission picks the ghost broker to decommission in this reconcile: only with
// spec.decommissionGhostBrokers set, only while nothing else is under way (a ghost keeps the
// health gate closed, so waiting on it counts as nothing under way), one per reconcile, lowest
// node ID first. A ghost that is draining is no longer listed as active, so it is never picked
// twice.
func (c *Controller) ghostToDecommission(bc *v1alpha1.BrokerCluster, s step.Step, obs step.Observation) *int32 {
	if !bc.Spec.DecommissionGhostBrokers || len(obs.Ghosts) == 0 {
		return nil
	}
	if s.Kind != step.None && s.Kind != step.WaitForHealthyCluster && s.Kind != step.WaitForReadyBrokers {
		return nil
	}
	id := obs.Ghosts[0]
	return &id
}

// decommissionGhost decommissions a ghost broker, after the status write that recorded the
// ghost list it was read from.
func (c *Controller) decommissionGhost(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32) error {
	c.metrics.decisions.WithLabelValues(string(step.DecommissionGhostBroker)).Inc()
	klog.FromContext(ctx).V(2).Info("Decision", "step", step.DecommissionGhostBroker, "broker", id, "reason", "spec.decommissionGhostBrokers is set")
	c.cfg.Recorder.Eventf(bc, corev1.EventTypeNormal, string(step.DecommissionGhostBroker),
		"decommissioning ghost broker %d: Redpanda lists it as an active member that is not alive, no pod of this cluster runs it, and spec.decommissionGhostBrokers is set", id)
	return c.decommission(ctx, bc, id)
}

// reportGhosts sets the gauge and emits a Warning event when the ghosts the admin API showed
// differ from those status recorded before.
func (c *Controller) reportGhosts(ctx context.Context, bc *v1alpha1.BrokerCluster, before, ghosts []int32, known bool) {
	if !known {
		return
	}
	c.metrics.ghostBrokers.WithLabelValues(bc.Namespace, bc.Name).Set(float64(len(ghosts)))
	if len(ghosts) == 0 || slices.Equal(before, ghosts) {
		return
	}
	klog.FromContext(ctx).Info("Ghost brokers", "brokers", ghosts)
	c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "GhostBrokers",
		"brokers %s are active members but not alive, and no pod of this cluster runs them; set spec.decommissionGhostBrokers to decommission them", ghostList(ghosts))
}
