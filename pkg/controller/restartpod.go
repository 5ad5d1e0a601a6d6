package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	"github.com/broker-operator/broker-operator/pkg/controller/trace"
)

// The rollout's one Kubernetes write: a broker pod's delete, by its UID. Which pod restarts
// next, and when, is internal/step/rollout.go.

// deleteRestartingPod deletes the pod recorded in status.restart, by its recorded UID: a pod
// that is already gone, or replaced by one with another UID, is left alone.
func (r *reconcile) deleteRestartingPod(ctx context.Context) error {
	rs := r.bc.Status.Restart
	if rs == nil || rs.PodUID == "" {
		return nil
	}
	return r.deletePod(ctx, step.PodRef{Name: rs.Pod, UID: rs.PodUID}, rs.NodeID)
}

// deleteStuckPod deletes a pod that cannot come up by itself (step.ReplaceStuckPod), by its
// UID, so that the StatefulSet makes it again from the current template.
func (r *reconcile) deleteStuckPod(ctx context.Context, s step.Step) error {
	if s.Pod == nil {
		return nil
	}
	broker := int32(-1)
	if s.Broker != nil {
		broker = *s.Broker
	}
	return r.deletePod(ctx, *s.Pod, broker)
}

// deletePod deletes pod with its UID as a precondition: a pod already gone, or replaced by one
// with another UID, is left alone.
func (r *reconcile) deletePod(ctx context.Context, pod step.PodRef, broker int32) error {
	hooks, ns := r.c.hooks(), r.bc.Namespace
	uid := types.UID(pod.UID)
	start := hooks.Start()
	err := r.nc.pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	hooks.Call(ctx, trace.DeletePod, broker, start, err)
	switch {
	case err == nil:
		// The step that called tells it as an event.
		klog.FromContext(ctx).V(2).Info("Deleted a broker pod", "pod", pod.Name, "uid", pod.UID, "broker", broker)
		return nil
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		klog.FromContext(ctx).V(2).Info("Broker pod already gone", "pod", pod.Name, "uid", pod.UID)
		return nil
	}
	return fmt.Errorf("delete pod %s/%s of broker %d: %w", ns, pod.Name, broker, err)
}

// readRestartingPod reads the pod recorded in status.restart from the apiserver, not from the
// pod cache, while the cache still has it: the admin API, read afresh, sees its broker down the
// moment someone else deletes the pod, while the cache may not have the delete yet, and a
// decision on that mix would suspend the restart (maintenance off) instead of adopting the pod
// that replaces it. One read per reconcile of a restart; none once the cache sees it go.
func (r *reconcile) readRestartingPod(ctx context.Context) error {
	rs := r.bc.Status.Restart
	if rs == nil || rs.PodUID == "" {
		return nil
	}
	cached := r.pods[int(rs.Ordinal)]
	if cached == nil || string(cached.UID) != rs.PodUID || cached.DeletionTimestamp != nil {
		return nil // the cache already tells that it is gone or going
	}
	hooks, ns := r.c.hooks(), r.bc.Namespace
	start := hooks.Start()
	p, err := r.nc.kubeClient.CoreV1().Pods(ns).Get(ctx, rs.Pod, metav1.GetOptions{})
	read := trace.Object{Resource: "pods", Namespace: ns, Name: rs.Pod}
	switch {
	case apierrors.IsNotFound(err):
		hooks.Read(ctx, read, start)
		delete(r.pods, int(rs.Ordinal))
		return nil
	case err != nil:
		return fmt.Errorf("read pod %s/%s of the restart: %w", ns, rs.Pod, err)
	}
	read.UID, read.ResourceVersion, read.Found = p.UID, p.ResourceVersion, true
	hooks.Read(ctx, read, start)
	if newer, err := resourceversion.CompareResourceVersion(p.ResourceVersion, cached.ResourceVersion); err == nil && newer > 0 {
		r.pods[int(rs.Ordinal)] = p
	}
	return nil
}
