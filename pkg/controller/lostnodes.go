package controller

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// A broker whose node is gone (internal/step/lostnodes.go decides). Only a pod the scheduler
// cannot place is looked at: its claim, the volume it is bound to and that volume's node are
// read with a GET by name each (objects.ReadVolumeNode), so a steady cluster reads nothing.

// findLostNodes fills in r.obs.LostNodes: the pods below currentReplicas that are unscheduled
// and marked Unschedulable, whose data volume is pinned to a node that no longer exists. A read
// that fails leaves it unknown (status keeps what it said). It returns when to look again: the
// grace period ends with no event to say so.
func (r *reconcile) findLostNodes(ctx context.Context) time.Duration {
	bc := r.bc
	grace, recovery := step.NodeLossGrace(bc)
	now := r.c.cfg.Clock.Now()
	l := step.LostNodes{Known: true, Recovery: recovery, Grace: grace, OthersReady: true, Now: now}
	for ordinal := range bc.Status.CurrentReplicas {
		p := r.pods[int(ordinal)]
		if !unschedulable(p) {
			continue
		}
		v, ok, err := objects.ReadVolumeNode(ctx, r.c.cfg.KubeClient, bc.Namespace, objects.DataClaimName(bc, ordinal))
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Cannot tell whether a pod's volume is on a node that is gone", "pod", p.Name, "err", err)
			l.Known = false
			continue
		}
		if !ok || !v.NodeGone {
			continue
		}
		id, known := brokerpod.NodeID(p)
		l.Brokers = append(l.Brokers, step.LostBroker{Ordinal: ordinal, Pod: p.Name, PodUID: string(p.UID), Claim: v.Claim,
			ClaimUID: v.ClaimUID, Volume: v.Volume, Node: v.Node, NodeID: id, IDKnown: known})
	}
	step.SeenSince(bc.Status.BrokersOnLostNodes, l.Brokers, now)
	for ordinal := range bc.Status.CurrentReplicas {
		p := r.pods[int(ordinal)]
		lost := slices.ContainsFunc(l.Brokers, func(b step.LostBroker) bool { return b.Ordinal == ordinal })
		if !lost && (p == nil || p.DeletionTimestamp != nil || !brokerpod.IsReady(p)) {
			l.OthersReady = false
		}
	}
	r.obs.LostNodes = l
	if len(l.Brokers) == 0 {
		return 0
	}
	return r.c.cfg.DrainPollInterval
}

// nameLostBrokers fills in the ID of each lost broker whose pod does not record it: a pod the
// StatefulSet made again after its node went has no annotation, but the members list still
// names the broker whose internal RPC address is the pod's stable name (brokers.VictimOf).
func (r *reconcile) nameLostBrokers() {
	if r.view == nil {
		return
	}
	lost := r.obs.LostNodes.Brokers
	for i, b := range lost {
		if v := brokers.VictimOf(b.Ordinal, *r.view); !b.IDKnown && v.IDKnown {
			lost[i].NodeID, lost[i].IDKnown = v.ID, true
		}
	}
}

// unschedulable: the pod exists, is not being deleted, has no node, and the scheduler has
// marked it Unschedulable.
func unschedulable(p *corev1.Pod) bool {
	if p == nil || p.DeletionTimestamp != nil || p.Spec.NodeName != "" {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// recoverLostBroker runs RecoverLostBroker's call, after its facts were read afresh: the
// volume's reclaim policy is set to Retain, so that deleting its claim deletes no data (should
// the node come back, a person may still read it), then the claim and the pod are deleted,
// each by UID, so that a claim or pod made again meanwhile is left alone. The StatefulSet makes
// both anew; a new volume is provisioned for the new claim on a node that exists.
func (r *reconcile) recoverLostBroker(ctx context.Context, s step.Step) error {
	l, kube, ns := s.Lost, r.c.cfg.KubeClient, r.bc.Namespace
	if l == nil {
		return nil
	}
	retain := fmt.Appendf(nil, `{"spec":{"persistentVolumeReclaimPolicy":%q}}`, corev1.PersistentVolumeReclaimRetain)
	if _, err := kube.CoreV1().PersistentVolumes().Patch(ctx, l.Volume, types.MergePatchType, retain, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("keep volume %s of lost broker pod %s/%s (reclaim policy Retain): %w", l.Volume, ns, l.Pod, err)
	}
	uid := types.UID(l.ClaimUID)
	err := kube.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, l.Claim, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case err == nil:
		klog.FromContext(ctx).V(2).Info("Deleted the volume claim of a broker whose node is gone", "claim", l.Claim, "uid", l.ClaimUID, "volume", l.Volume, "node", l.Node)
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		klog.FromContext(ctx).V(2).Info("Volume claim of a lost broker already gone", "claim", l.Claim, "uid", l.ClaimUID)
	default:
		return fmt.Errorf("delete volume claim %s/%s of lost broker pod %s: %w", ns, l.Claim, l.Pod, err)
	}
	return r.deletePod(ctx, *s.Pod, l.NodeID)
}
