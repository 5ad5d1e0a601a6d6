package step

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A broker whose node is gone. With a local volume, a broker's data lives on one node; when
// that node's object is deleted, the broker's pod, bound by its claim to the volume and by the
// volume to the node, can never be scheduled again. pkg/controller/lostnodes.go finds such pods
// (LostNodes); status.brokersOnLostNodes and the NodeLost condition report them, with a Warning
// event when one is first seen. With spec.nodeLossRecovery, RecoverLostBroker brings one back
// on a new, empty volume: it keeps the volume (reclaim policy Retain) and deletes the claim and
// the pod, and the StatefulSet makes both anew. The new broker joins with a new node ID, and
// the ghost path (ghosts.go) decommissions the old one.
//
// Its gates follow those Redpanda operator v2's PVC unbinder grew after an incident in which
// several brokers were unbound at once and disks were paired with the wrong brokers
// (redpanda-data/redpanda-operator operator/internal/controller/pvcunbinder/pvcunbinder.go;
// its PR 1572, issue 166): one broker at a time (its in-flight gate: here FactOthersUp, since
// the recovered broker's old ID stays down until its decommission ends, and status.restart and
// status.decommissioningBroker are empty: the row is only reached with nothing else under way);
// no recovery when brokers are lost on more than one node at once, which looks like a cluster
// event rather than a node's death (its multi-node gate; here any second lost broker holds
// it); the pause annotation (broker-operator.dev/paused, paused.go). Its pvc-rebinding and
// freed-pv gates guard claims it may leave unbound and volumes it frees for any claim; this
// recovery frees no volume (Retain keeps the old one bound to the deleted claim, Released, so
// it can be bound to no other) and waits for every other broker's pod to be Ready. Where the
// unbinder acts on any volume node affinity conflict after a timeout, the node must be gone
// here: a node that is only NotReady may come back with the data, and is never treated as gone.

// LostBroker is a broker pod below C that cannot be scheduled because its data volume claim is
// bound to a volume pinned to a node that no longer exists.
type LostBroker struct {
	Ordinal         int32
	Pod, PodUID     string
	Claim, ClaimUID string
	Volume, Node    string
	// NodeID is the broker ID recorded on the pod, when IDKnown.
	NodeID  int32
	IDKnown bool
	// Since is when the operator first saw the node gone (status.brokersOnLostNodes).
	Since time.Time
}

// LostNodes is what the node-loss recovery rests on.
type LostNodes struct {
	// Known: every pod that could be on a lost node was looked at; false when a read failed,
	// and status keeps what it said.
	Known bool
	// Brokers are the lost brokers, lowest ordinal first.
	Brokers []LostBroker
	// Recovery is spec.nodeLossRecovery set, Grace its grace period.
	Recovery bool
	Grace    time.Duration
	// OthersReady: every pod below C but the lost broker's exists, is Ready and is not being
	// deleted.
	OthersReady bool
	Now         time.Time
}

// DefaultNodeLossGrace is spec.nodeLossRecovery.gracePeriod when it is not set.
const DefaultNodeLossGrace = 10 * time.Minute

// NodeLossGrace is the grace period spec.nodeLossRecovery asks for, and whether it is set.
func NodeLossGrace(bc *v1alpha1.BrokerCluster) (time.Duration, bool) {
	r := bc.Spec.NodeLossRecovery
	if r == nil {
		return 0, false
	}
	if r.GracePeriod == nil {
		return DefaultNodeLossGrace, true
	}
	return max(r.GracePeriod.Duration, 0), true
}

// SeenSince fills in each found broker's Since: the time recorded in status for the same pod,
// volume and node, or now for one not recorded yet; and its ID, when its pod does not record
// it, from status.
func SeenSince(recorded []v1alpha1.BrokerOnLostNode, found []LostBroker, now time.Time) {
	for i, b := range found {
		found[i].Since = now
		for _, r := range recorded {
			if r.Pod != b.Pod || r.Volume != b.Volume || r.Node != b.Node {
				continue
			}
			found[i].Since = r.Since.Time
			if !b.IDKnown && r.NodeID != nil {
				found[i].NodeID, found[i].IDKnown = *r.NodeID, true
			}
		}
	}
}

// LostStatus is status.brokersOnLostNodes for the found brokers.
func LostStatus(found []LostBroker) []v1alpha1.BrokerOnLostNode {
	var out []v1alpha1.BrokerOnLostNode
	for _, b := range found {
		e := v1alpha1.BrokerOnLostNode{Pod: b.Pod, Ordinal: b.Ordinal, Claim: b.Claim, Volume: b.Volume, Node: b.Node, Since: metav1.NewTime(b.Since)}
		if b.IDKnown {
			id := b.NodeID
			e.NodeID = &id
		}
		out = append(out, e)
	}
	return out
}

// lostOf is the lost broker at ordinal, if it is one.
func lostOf(o Observation, ordinal int32) (LostBroker, bool) {
	i := slices.IndexFunc(o.LostNodes.Brokers, func(b LostBroker) bool { return b.Ordinal == ordinal })
	if i < 0 {
		return LostBroker{}, false
	}
	return o.LostNodes.Brokers[i], true
}

// recoveryHold says why the recovery of the only lost broker b is not due yet, "" when it is.
func recoveryHold(o Observation, b LostBroker) string {
	l := o.LostNodes
	switch {
	case !l.Recovery:
		return "set spec.nodeLossRecovery to bring the broker back on a new, empty volume, or bring the node back"
	case o.Brokers() < 2:
		return "spec.nodeLossRecovery cannot bring back the only broker of a cluster: no other broker holds a copy of its data"
	case len(l.Brokers) > 1:
		return fmt.Sprintf("%d brokers are on nodes that are gone; spec.nodeLossRecovery brings back one broker at a time only when no other is lost, as several lost at once looks like a cluster-wide event: bring the nodes back, or delete the claims by hand", len(l.Brokers))
	case !b.IDKnown:
		return "spec.nodeLossRecovery cannot bring it back: the broker ID its pod ran is not recorded on the pod, so its old ID could not be decommissioned"
	case l.Now.Sub(b.Since) < l.Grace:
		return fmt.Sprintf("spec.nodeLossRecovery brings it back once the node has been gone for %s (in %s)", l.Grace, (l.Grace - l.Now.Sub(b.Since)).Round(time.Second))
	case !l.OthersReady:
		return "spec.nodeLossRecovery brings it back once every other broker's pod is Ready"
	}
	return ""
}

// recoveryDue: spec.nodeLossRecovery is set, exactly one broker is lost, its ID is known, its
// node has been gone for the grace period, and every other broker's pod is Ready. The row's
// facts (table.go) read the node, the other brokers and their drains afresh before the deletes.
func recoveryDue(o Observation) bool {
	l := o.LostNodes
	return len(l.Brokers) == 1 && recoveryHold(o, l.Brokers[0]) == ""
}

// lostWhy says why a lost broker's pod cannot start, and what happens next.
func lostWhy(o Observation, b LostBroker) string {
	why := fmt.Sprintf("pod %s cannot be scheduled: its volume claim %s is bound to volume %s, which is pinned to node %s, and node %s no longer exists (seen gone since %s)",
		b.Pod, b.Claim, b.Volume, b.Node, b.Node, b.Since.UTC().Format(time.RFC3339))
	if hold := recoveryHold(o, b); hold != "" {
		return why + "; " + hold
	}
	return why
}

// recoverReason is the reason of RecoverLostBroker.
func recoverReason(o Observation) string {
	b := o.LostNodes.Brokers[0]
	return fmt.Sprintf("bringing back broker %d (pod %s), whose volume %s is pinned to node %s, gone since %s: volume %s kept (reclaim policy Retain), claim %s and pod %s deleted, so that the StatefulSet makes both anew; the broker comes back on an empty volume with a new node ID, its data copied from the other replicas, and its old ID %d is decommissioned as a ghost broker once the new one has joined",
		b.NodeID, b.Pod, b.Volume, b.Node, b.Since.UTC().Format(time.RFC3339), b.Volume, b.Claim, b.Pod, b.NodeID)
}

// Reasons of the NodeLost condition.
const (
	// ReasonVolumeNodeGone: a broker's pod cannot be scheduled because its data volume is pinned
	// to a node that no longer exists.
	ReasonVolumeNodeGone = "VolumeNodeGone"
	// ReasonNoNodeLost: no broker's volume is pinned to a node that is gone.
	ReasonNoNodeLost = "NoNodeLost"
)

// lostCondition is the NodeLost condition for the lost brokers in found, or nil when there is
// none and the condition never appeared: it appears with the first lost broker.
func lostCondition(conditions []metav1.Condition, found []v1alpha1.BrokerOnLostNode) *metav1.Condition {
	if len(found) == 0 {
		if meta.FindStatusCondition(conditions, v1alpha1.ConditionNodeLost) == nil {
			return nil
		}
		return &metav1.Condition{Type: v1alpha1.ConditionNodeLost, Status: metav1.ConditionFalse, Reason: ReasonNoNodeLost,
			Message: "no broker's volume is pinned to a node that is gone"}
	}
	var each []string
	for _, b := range found {
		each = append(each, fmt.Sprintf("pod %s (claim %s, volume %s) is pinned to node %s, gone since %s", b.Pod, b.Claim, b.Volume, b.Node, b.Since.UTC().Format(time.RFC3339)))
	}
	return &metav1.Condition{Type: v1alpha1.ConditionNodeLost, Status: metav1.ConditionTrue, Reason: ReasonVolumeNodeGone,
		Message: strings.Join(each, "; ")}
}

// LostEvents are the Warning events for the brokers found on a lost node that status did not
// record before: one each, naming the pod, the claim, the volume and the node.
func LostEvents(before, after []v1alpha1.BrokerOnLostNode) []Event {
	var out []Event
	for _, b := range after {
		if slices.ContainsFunc(before, func(r v1alpha1.BrokerOnLostNode) bool {
			return r.Pod == b.Pod && r.Volume == b.Volume && r.Node == b.Node
		}) {
			continue
		}
		out = append(out, Event{Type: corev1.EventTypeWarning, Reason: EventNodeLost, Message: fmt.Sprintf(
			"pod %s cannot be scheduled: its volume claim %s is bound to volume %s, which is pinned to node %s, and node %s no longer exists", b.Pod, b.Claim, b.Volume, b.Node, b.Node)})
	}
	return out
}

// EventNodeLost is the reason of the event LostEvents sends.
const EventNodeLost = "NodeLost"
