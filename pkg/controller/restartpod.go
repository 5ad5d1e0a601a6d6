package controller

import (
	"context"
	"fmt"

	"github.com/broker-operator/broker-operator/pkg/controller/trace"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// The rollout's one Kubernetes write: the restart's pod delete. Which pod restarts next, and
// when, is internal/step/rollout.go.

// deleteRestartingPod deletes the pod recorded in status.restart, by its recorded UID: a pod
// that is already gone, or replaced by one with another UID, is left alone.
func (r *reconcile) deleteRestartingPod(ctx context.Context) error {
	hooks, nc, bc := r.c.hooks(), r.nc, r.bc
	rs := bc.Status.Restart
	if rs == nil || rs.PodUID == "" {
		return nil
	}
	uid := types.UID(rs.PodUID)
	start := hooks.Start()
	err := nc.pods(bc.Namespace).Delete(ctx, rs.Pod, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	hooks.Call(ctx, trace.DeletePod, rs.NodeID, start, err)
	switch {
	case err == nil:
		// The step that called (RestartPod, RestartSingleBroker, DeletePod) tells it as an event.
		klog.FromContext(ctx).V(2).Info("Deleted the restarting pod", "pod", rs.Pod, "uid", rs.PodUID, "broker", rs.NodeID)
		return nil
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		klog.FromContext(ctx).V(2).Info("Restarting pod already gone", "pod", rs.Pod, "uid", rs.PodUID)
		return nil
	}
	return fmt.Errorf("delete pod %s/%s to restart broker %d: %w", bc.Namespace, rs.Pod, rs.NodeID, err)
}
