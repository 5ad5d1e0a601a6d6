package controller

import (
	"context"
	"fmt"
	"strconv"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// ensureOwned creates or updates the headless Service, the PodDisruptionBudget, the per-broker
// external Services and the StatefulSet; the last two follow currentReplicas.
func (r *reconcile) ensureOwned(ctx context.Context, replicas int32) error {
	if err := r.ensureService(ctx); err != nil {
		return err
	}
	// Before the StatefulSet: a broker's Service exists by the time its pod does.
	if err := r.ensureExternalServices(ctx, max(replicas, 0)); err != nil {
		return err
	}
	if err := r.ensurePodDisruptionBudget(ctx); err != nil {
		return err
	}
	if replicas <= 0 {
		return nil // nothing to run yet
	}
	return r.ensureStatefulSet(ctx, replicas)
}

// ensureService creates bc's headless Service, or puts its ports and selector back.
func (r *reconcile) ensureService(ctx context.Context) error {
	bc := r.bc
	svc := objects.NewService(bc)
	return r.applyService(ctx, svc, func(update *corev1.Service) {
		update.Spec.Ports, update.Spec.Selector, update.Spec.PublishNotReadyAddresses = svc.Spec.Ports, svc.Spec.Selector, svc.Spec.PublishNotReadyAddresses
	})
}

// ensurePodDisruptionBudget creates bc's PodDisruptionBudget, or puts its spec back.
func (r *reconcile) ensurePodDisruptionBudget(ctx context.Context) error {
	nc, bc := r.nc, r.bc
	ns := bc.Namespace
	pdb := objects.NewPodDisruptionBudget(bc)
	existing, err := nc.listers().pdbs.PodDisruptionBudgets(ns).Get(bc.Name)
	switch {
	case apierrors.IsNotFound(err):
		if _, err := nc.podDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create PodDisruptionBudget %s: %w", clusterKey(bc), err)
		}
		return nil
	case err != nil:
		return err
	}
	// The API server defaults nothing in a PDB's spec, so it is compared whole: an edit by
	// hand (say maxUnavailable 2) is put back, not only a change of the operator's own.
	if err := r.checkOwned(existing); err != nil || (!objects.SpecChanged(existing, pdb) && equality.Semantic.DeepEqual(existing.Spec, pdb.Spec)) {
		return err
	}
	update := existing.DeepCopy()
	update.Spec = pdb.Spec
	objects.MergeMeta(&update.ObjectMeta, &pdb.ObjectMeta)
	if _, err := nc.podDisruptionBudgets(ns).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update PodDisruptionBudget %s: %w", clusterKey(bc), err)
	}
	return nil
}

// ensureStatefulSet creates bc's StatefulSet with replicas, or brings it in line.
func (r *reconcile) ensureStatefulSet(ctx context.Context, replicas int32) error {
	c, nc, bc := r.c, r.nc, r.bc
	ns := bc.Namespace
	existing, err := nc.readStatefulSet(ctx, ns, bc.Name)
	if apierrors.IsNotFound(err) {
		return r.createStatefulSet(ctx, replicas)
	}
	if err != nil {
		return err
	}
	if err := r.checkOwned(existing); err != nil {
		return err
	}
	if existing.DeletionTimestamp != nil {
		return nil // being deleted (templategrowth.go): its delete event brings the next reconcile
	}
	if r.claimTemplateDue(existing) {
		return r.remakeStatefulSet(ctx, existing, replicas)
	}
	seeds := objects.FoundingSeeds(existing, replicas)
	sts := objects.StatefulSetWith(bc, replicas, seeds, c.templates.Get(bc, seeds))
	if update := objects.UpdatedStatefulSet(existing, sts); update != nil {
		klog.FromContext(ctx).V(4).Info("Updating StatefulSet", "replicas", replicas, "specChanged", objects.SpecChanged(existing, sts))
		if _, err := nc.statefulSets(ns).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update StatefulSet %s: %w", clusterKey(bc), err)
		}
	}
	return nil
}

// checkOwned refuses to touch an object of the same name that this BrokerCluster does not
// control.
func (r *reconcile) checkOwned(obj metav1.Object) error {
	c, bc := r.c, r.bc
	if objects.OwnedBy(obj, bc) {
		return nil
	}
	c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "ResourceExists", "%s exists and is not controlled by this BrokerCluster", obj.GetName())
	return fmt.Errorf("%s/%s exists and is not controlled by BrokerCluster %s", obj.GetNamespace(), obj.GetName(), clusterKey(bc))
}

// annotatePods records each listed broker's ID on its pod, and reports whether a Ready pod's
// broker is still unknown.
func (r *reconcile) annotatePods(ctx context.Context) (unknown bool, err error) {
	nc, pods, view := r.nc, r.pods, *r.view
	for ordinal, pod := range pods {
		id, learnt := view.Learnt(ordinal)
		if !learnt {
			_, recorded := brokerpod.NodeID(pod)
			unknown = unknown || (!recorded && brokerpod.IsReady(pod) && pod.DeletionTimestamp == nil)
			continue
		}
		want := strconv.Itoa(int(id))
		if pod.Annotations[AnnotationNodeID] == want {
			continue
		}
		_, before := brokerpod.NodeID(pod)
		patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, AnnotationNodeID, want)
		if _, err := nc.pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return unknown, fmt.Errorf("annotate pod %s/%s with its broker ID: %w", pod.Namespace, pod.Name, err)
		}
		if !before && r.whole != nil {
			// A move's story names each broker that joins (pools.go).
			r.c.cfg.Recorder.Eventf(r.whole, corev1.EventTypeNormal, "BrokerJoined", "pod %s runs broker %d", pod.Name, id)
		}
	}
	return unknown, nil
}
