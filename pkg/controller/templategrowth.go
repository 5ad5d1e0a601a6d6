package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// The StatefulSet's claim template follows a growth of spec.storage.size, so that a broker made
// later (a scale-up) gets the new size. A StatefulSet's claim templates cannot be updated
// (internal/objects/claimtemplate.go), so the StatefulSet is deleted with propagationPolicy
// Orphan, which leaves its pods and claims as they are, and made again with the new template; it
// adopts the pods by their labels, and with updateStrategy OnDelete it restarts none. While it
// is gone no pod is made or removed, so it is done only when nothing needs one: no decommission
// and no restart under way, and only once every claim's StorageClass allows the growth
// (volumes.go), so that a refused growth changes nothing at all.

// claimTemplateDue reports whether existing's claim template must be made with
// spec.storage.size now.
func (r *reconcile) claimTemplateDue(existing *appsv1.StatefulSet) bool {
	st := r.bc.Status
	size := objects.ClaimTemplateSize(existing)
	return r.templateMayGrow && size.Cmp(r.bc.Spec.Storage.Size) < 0 &&
		st.DecommissioningBroker == nil && st.Restart == nil
}

// remakeStatefulSet deletes existing, orphaning its pods and claims, by its UID, and creates it
// again with the same founding seeds and spec.storage.size in its claim template.
func (r *reconcile) remakeStatefulSet(ctx context.Context, existing *appsv1.StatefulSet, replicas int32) error {
	if err := r.deleteOrphaning(ctx, existing, r.bc.Spec.Storage.Size.String()); err != nil {
		return err
	}
	return r.createStatefulSetWith(ctx, replicas, objects.FoundingSeeds(existing, replicas))
}

// deleteOrphaning deletes existing, a StatefulSet of the cluster, by its UID, orphaning its pods
// and claims, so that it can be made again with its claim template at size.
func (r *reconcile) deleteOrphaning(ctx context.Context, existing *appsv1.StatefulSet, size string) error {
	nc, bc := r.nc, r.bc
	uid := existing.UID
	err := nc.statefulSets(bc.Namespace).Delete(ctx, existing.Name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan),
		Preconditions:     &metav1.Preconditions{UID: &uid},
	})
	// NotFound or Conflict (another UID): the one read is gone already; a cache that has not seen
	// it go can bring this reconcile here.
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete StatefulSet %s/%s to make its claim template anew: %w", bc.Namespace, existing.Name, err)
	}
	old := objects.ClaimTemplateSize(existing)
	klog.FromContext(ctx).V(2).Info("Deleted a StatefulSet, orphaning its pods, to make its claim template anew", "statefulSet", existing.Name, "from", old.String(), "to", size)
	r.c.cfg.Recorder.Eventf(bc, corev1.EventTypeNormal, "RemakeStatefulSet",
		"the claim template of StatefulSet %s asks for %s and the storage size is %s; a claim template cannot change, so the StatefulSet was deleted with its pods and claims orphaned and is made again; no pod restarts",
		existing.Name, old.String(), size)
	return nil
}

// createStatefulSet creates bc's StatefulSet. Its founding seeds are what its pods were made
// with when there are pods (a StatefulSet made again), else replicas (a new cluster).
func (r *reconcile) createStatefulSet(ctx context.Context, replicas int32) error {
	return r.createStatefulSetWith(ctx, replicas, objects.Seeds(nil, r.pods, replicas))
}

func (r *reconcile) createStatefulSetWith(ctx context.Context, replicas, seeds int32) error {
	c, nc, bc := r.c, r.nc, r.bc
	sts := objects.StatefulSetWith(bc, replicas, seeds, c.templates.Get(bc, seeds))
	_, err := nc.statefulSets(bc.Namespace).Create(ctx, sts, metav1.CreateOptions{})
	switch {
	case err == nil:
		return nil
	case apierrors.IsAlreadyExists(err):
		// The one deleted is still there until the garbage collector has orphaned its pods;
		// its delete event brings the next reconcile.
		klog.FromContext(ctx).V(2).Info("The StatefulSet is still being deleted; it is made again once it is gone")
		return nil
	}
	return fmt.Errorf("create StatefulSet %s: %w", clusterKey(bc), err)
}
