package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// The rollout's I/O: what the pods say about it (observeRollout) and the restart's pod delete.
// Its decision is decide_rollout.go.

// observeRollout reads what the pods say about the rollout: which pods below C were made from
// another template than bc's or run a broker in configRestarts (one that waits for a restart
// for a cluster property, by the node ID recorded on its pod), whether all of them are Ready,
// and how R's pod is doing. The admin API's part (the next broker's ID, maintenance mode,
// whether R's broker is back) is filled in by observe.
// revision is the template hash of the pods bc's StatefulSet makes (templateRevision).
func observeRollout(bc *v1alpha1.BrokerCluster, revision string, pods map[int]*corev1.Pod, configRestarts map[int32]bool) step.Rollout {
	r := step.Rollout{Restart: bc.Status.Restart, AllReady: true, Revision: revision}
	for ordinal := int(bc.Status.CurrentReplicas) - 1; ordinal >= 0; ordinal-- {
		p := pods[ordinal]
		if p == nil || !brokerpod.IsReady(p) {
			r.AllReady = false
		}
		if p == nil || p.DeletionTimestamp != nil {
			continue // the StatefulSet makes its replacement from the current template
		}
		if brokerpod.Revision(p) == revision {
			r.Updated++
			if id, ok := brokerpod.NodeID(p); !ok || !configRestarts[id] {
				continue
			}
		}
		r.Outdated++
		if r.NextPod == "" {
			r.Next.Ordinal, r.NextPod, r.NextPodUID = int32(ordinal), p.Name, string(p.UID)
		}
	}
	if rs := r.Restart; rs != nil {
		p := pods[int(rs.Ordinal)]
		r.OldPodGone = p == nil || string(p.UID) != rs.PodUID
		r.OldPodDeleting = !r.OldPodGone && p.DeletionTimestamp != nil
		r.PodReady = !r.OldPodGone && !r.OldPodDeleting && brokerpod.IsReady(p)
		r.Back = r.OldPodGone && p != nil && brokerpod.IsReady(p)
	}
	return r
}

// deleteRestartingPod deletes the pod recorded in status.restart, by its recorded UID: a pod
// that is already gone, or replaced by one with another UID, is left alone.
func (c *Controller) deleteRestartingPod(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster) error {
	r := bc.Status.Restart
	if r == nil || r.PodUID == "" {
		return nil
	}
	uid := types.UID(r.PodUID)
	start := c.traceStart()
	err := nc.pods(bc.Namespace).Delete(ctx, r.Pod, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	c.traceAdmin(ctx, traceDeletePod, r.NodeID, start, err)
	switch {
	case err == nil:
		// The step that called (RestartPod, RestartSingleBroker, DeletePod) tells it as an event.
		klog.FromContext(ctx).V(2).Info("Deleted the restarting pod", "pod", r.Pod, "uid", r.PodUID, "broker", r.NodeID)
		return nil
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		klog.FromContext(ctx).V(2).Info("Restarting pod already gone", "pod", r.Pod, "uid", r.PodUID)
		return nil
	}
	return fmt.Errorf("delete pod %s/%s to restart broker %d: %w", bc.Namespace, r.Pod, r.NodeID, err)
}
