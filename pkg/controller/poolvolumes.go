package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// Volume growth of a cluster with pools: each pool's storage.size is carried to its own claims
// by growVolumes (volumes.go) on the pool's focus view, one pool at a time in the pools' order,
// so that StorageResized speaks of one growth at a time. The default pool's growth is recorded
// in status.storage, a named pool's in its status.pools entry. A pool's StatefulSet is made
// again with the grown claim template as a cluster's one is (templategrowth.go).

// growPoolVolumes runs growVolumes for the first pool whose volumes wait for a growth, and
// records which pools' claim templates may grow. It returns when to look again.
func (r *reconcile) growPoolVolumes(ctx context.Context) (time.Duration, error) {
	for i, p := range r.pools {
		view := r.poolView(p)
		if _, named := objects.WithPool(r.whole, p.name); !named || p.sts == nil ||
			!step.NeedsVolumeGrowth(view.bc.Spec.Storage.Size, objects.ClaimTemplateSize(p.sts), view.bc.Status.Storage, view.bc.Status.CurrentReplicas) {
			continue
		}
		recheck, err := view.growVolumes(ctx)
		if err != nil {
			return 0, err
		}
		r.whole = view.whole
		r.pools[i].templateMayGrow = view.templateMayGrow
		return recheck, nil
	}
	return 0, nil
}

// patchStorageStatus writes the storage status of the pool the reconcile looks at: status.storage
// for a cluster without pools and for the default pool, the pool's status.pools entry for a
// named one; conds are the whole cluster's conditions. r.bc becomes the view of what it wrote.
func (r *reconcile) patchStorageStatus(ctx context.Context, conds []metav1.Condition, storage v1alpha1.StorageStatus) error {
	if r.whole == nil {
		updated, err := patchStatusFields(ctx, r.nc, r.bc, "storage status", map[string]any{"conditions": conds, "storage": storage})
		if err != nil {
			return err
		}
		r.bc = updated
		return nil
	}
	fields := map[string]any{"conditions": conds}
	if r.focus == step.DefaultPool {
		fields["storage"] = storage
	} else {
		pools := make([]v1alpha1.PoolStatus, 0, len(r.whole.Status.Pools))
		for _, e := range r.whole.Status.Pools {
			if e.Name == r.focus {
				e.Storage = storage.DeepCopy()
			}
			pools = append(pools, e)
		}
		fields["pools"] = pools
	}
	updated, err := patchStatusFields(ctx, r.nc, r.whole, "storage status of pool "+r.focus, fields)
	if err != nil {
		return err
	}
	r.whole, r.bc = updated, brokers.FocusView(updated, r.focus)
	return nil
}

// poolClaimTemplateDue reports whether the pool's StatefulSet must be made again with its
// storage.size in the claim template, as claimTemplateDue does for a cluster's one.
func (r *reconcile) poolClaimTemplateDue(p poolSet, desired *appsv1.StatefulSet) bool {
	st := r.whole.Status
	size := objects.ClaimTemplateSize(p.sts)
	return p.templateMayGrow && size.Cmp(objects.ClaimTemplateSize(desired)) < 0 &&
		st.DecommissioningBroker == nil && st.Restart == nil
}

// remakePoolStatefulSet deletes the pool's StatefulSet, orphaning its pods and claims, and
// creates desired, with the grown claim template, in its place.
func (r *reconcile) remakePoolStatefulSet(ctx context.Context, p poolSet, desired *appsv1.StatefulSet) error {
	view := r.poolView(p)
	size := objects.ClaimTemplateSize(desired)
	if err := view.deleteOrphaning(ctx, p.sts, size.String()); err != nil {
		return err
	}
	_, err := r.nc.statefulSets(desired.Namespace).Create(ctx, desired, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) { // still being deleted: its delete event brings the next reconcile
		return fmt.Errorf("create StatefulSet %s/%s: %w", desired.Namespace, desired.Name, err)
	}
	return nil
}
