package controller

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// refocus makes updated, the BrokerCluster a status write left, the reconcile's whole cluster,
// and returns its focus view.
func (r *reconcile) refocus(updated *v1alpha1.BrokerCluster) *v1alpha1.BrokerCluster {
	if updated == r.whole {
		return r.bc // nothing written
	}
	r.whole = updated
	for i := range r.pools {
		r.pools[i].current = step.PoolCurrent(updated, r.pools[i].name)
	}
	return brokers.FocusView(updated, r.focus)
}

// ensurePools is ensureOwned (owned.go) for a cluster with pools: the seeds ConfigMap first
// (a pool's pods read it when they start), the PodDisruptionBudget over every pool, and each
// pool's headless Service and StatefulSet at its C. A pool removed from the spec keeps its
// StatefulSet, shrinking as its brokers leave, until it has none: then its StatefulSet and
// Service go (its claims went as spec.storage.whenScaledDown says while it shrank).
func (r *reconcile) ensurePools(ctx context.Context, _ int32) error {
	whole := r.whole
	if err := r.ensureSeeds(ctx); err != nil {
		return err
	}
	if err := r.ensurePodDisruptionBudget(ctx); err != nil {
		return err
	}
	for _, p := range r.pools {
		current := step.PoolCurrent(whole, p.name)
		if _, named := objects.WithPool(whole, p.name); !named {
			if err := r.retirePool(ctx, p, current); err != nil {
				return err
			}
			continue
		}
		if err := r.applyService(ctx, objects.NewPoolService(whole, p.name), func(update *corev1.Service) {
			svc := objects.NewPoolService(whole, p.name)
			update.Spec.Ports, update.Spec.Selector, update.Spec.PublishNotReadyAddresses = svc.Spec.Ports, svc.Spec.Selector, svc.Spec.PublishNotReadyAddresses
		}); err != nil {
			return err
		}
		if err := r.ensurePoolStatefulSet(ctx, p, current); err != nil {
			return err
		}
	}
	return nil
}

// ensurePoolStatefulSet creates the pool's StatefulSet at replicas, or brings it in line. The
// default pool keeps the StatefulSet it had before pools, seeds in its template, while it has
// brokers; once it has none its seeds move to the ConfigMap, which restarts nothing, so that a
// broker it gets again never starts with founding seeds that are gone.
func (r *reconcile) ensurePoolStatefulSet(ctx context.Context, p poolSet, replicas int32) error {
	whole, ns := r.whole, r.whole.Namespace
	if !seedsInConfigMap(p, replicas) {
		view := r.poolView(p)
		return view.ensureStatefulSet(ctx, replicas)
	}
	sts, _ := objects.NewPoolStatefulSet(whole, p.name, replicas, r.c.cfg.ClusterDomain)
	if p.sts == nil {
		if replicas == 0 {
			return nil
		}
		if _, err := r.nc.statefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create StatefulSet %s/%s: %w", ns, sts.Name, err)
		}
		return nil
	}
	if err := r.checkOwned(p.sts); err != nil || p.sts.DeletionTimestamp != nil {
		return err
	}
	if r.poolClaimTemplateDue(p, sts) {
		return r.remakePoolStatefulSet(ctx, p, sts)
	}
	if update := objects.UpdatedStatefulSet(p.sts, sts); update != nil {
		klog.FromContext(ctx).V(4).Info("Updating a pool's StatefulSet", "pool", p.name, "replicas", replicas)
		if _, err := r.nc.statefulSets(ns).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update StatefulSet %s/%s: %w", ns, sts.Name, err)
		}
	}
	return nil
}

// retirePool shrinks the StatefulSet of a pool removed from the spec to replicas as its brokers
// leave, and deletes it and its Service once it has no broker and no pod left.
func (r *reconcile) retirePool(ctx context.Context, p poolSet, replicas int32) error {
	ns := r.whole.Namespace
	if p.sts == nil {
		return r.deletePoolService(ctx, p)
	}
	if err := r.checkOwned(p.sts); err != nil || p.sts.DeletionTimestamp != nil {
		return err
	}
	if replicas > 0 || len(p.pods) > 0 {
		if ptr.Deref(p.sts.Spec.Replicas, 1) == replicas {
			return nil
		}
		update := p.sts.DeepCopy()
		update.Spec.Replicas = ptr.To(replicas)
		if _, err := r.nc.statefulSets(ns).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update StatefulSet %s/%s: %w", ns, p.set, err)
		}
		return nil
	}
	uid := p.sts.UID
	err := r.nc.statefulSets(ns).Delete(ctx, p.set, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete StatefulSet %s/%s of a removed pool: %w", ns, p.set, err)
	}
	r.c.cfg.Recorder.Eventf(r.whole, corev1.EventTypeNormal, "PoolRemoved", "pool %s has no broker left: its StatefulSet %s is deleted", p.name, p.set)
	return r.deletePoolService(ctx, p)
}

// deletePoolService deletes the headless Service of a removed pool, if it is there.
func (r *reconcile) deletePoolService(ctx context.Context, p poolSet) error {
	ns := r.whole.Namespace
	svc, err := r.nc.listers().services.Services(ns).Get(p.set)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || !objects.OwnedBy(svc, r.whole) {
		return err
	}
	uid := svc.UID
	if err := r.nc.services(ns).Delete(ctx, p.set, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete Service %s/%s of a removed pool: %w", ns, p.set, err)
	}
	return nil
}

// ensureSeeds makes the seeds ConfigMap, naming the founding brokers, or, once the admin API
// was asked this reconcile, the live members step.ChooseSeeds names. It is never emptied.
func (r *reconcile) ensureSeeds(ctx context.Context) error {
	whole, ns := r.whole, r.whole.Namespace
	cms := r.nc.configMaps(ns)
	name := objects.SeedsConfigMapName(whole)
	existing, err := r.nc.listers().configMaps.ConfigMaps(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		existing = nil
	case err != nil:
		return fmt.Errorf("read the seeds of %s: %w", clusterKey(whole), err)
	}
	var hosts []string
	if r.view != nil {
		hosts = step.ChooseSeeds(r.view.SeedCandidates(r.bc, r.c.cfg.ClusterDomain), r.poolStates(), whole.Status.DecommissioningBroker)
	}
	if existing == nil {
		if len(hosts) == 0 {
			hosts = r.foundingHosts()
		}
		if len(hosts) == 0 {
			return nil // no pool has a broker yet
		}
		cm, err := objects.NewSeedsConfigMap(whole, hosts)
		if err != nil {
			return err
		}
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		switch {
		case err == nil:
			return nil
		case !apierrors.IsAlreadyExists(err):
			return fmt.Errorf("create the seeds of %s: %w", clusterKey(whole), err)
		}
		// The informer holds only ConfigMaps with the managed-by label: one of this name without
		// it is read from the apiserver, refused if it is another's, labelled again if ours.
		existing, err = cms.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil // deleted since: the next reconcile makes it
		}
		if err != nil {
			return fmt.Errorf("read the seeds of %s: %w", clusterKey(whole), err)
		}
	}
	if err := r.checkOwned(existing); err != nil {
		return err
	}
	now, _ := objects.SeedsOf(existing)
	if len(hosts) == 0 {
		hosts = now // nothing newer: what it names, labelled again if need be
	}
	if len(hosts) == 0 || (slices.Equal(now, hosts) && existing.Labels[objects.LabelManagedBy] == objects.ManagedByValue) {
		return nil
	}
	cm, err := objects.NewSeedsConfigMap(whole, hosts)
	if err != nil {
		return err
	}
	update := existing.DeepCopy()
	update.Data = cm.Data
	objects.MergeMeta(&update.ObjectMeta, &cm.ObjectMeta)
	if _, err := cms.Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update the seeds of %s: %w", clusterKey(whole), err)
	}
	klog.FromContext(ctx).V(2).Info("Seeds moved", "seeds", hosts)
	return nil
}

// foundingHosts are the seeds of a cluster whose seeds ConfigMap is not made yet: the default
// pool's founding pods when it has a StatefulSet (a cluster that had no pools before), else the
// first pool with brokers, all of whose pods found the cluster together.
func (r *reconcile) foundingHosts() []string {
	whole := r.whole
	for _, p := range r.pools {
		if p.name == v1alpha1.DefaultPoolName && p.sts != nil {
			return objects.FoundingHosts(whole, p.set, objects.FoundingSeeds(p.sts, p.current), r.c.cfg.ClusterDomain)
		}
	}
	for _, p := range r.pools {
		if c := step.PoolCurrent(whole, p.name); c > 0 {
			return objects.FoundingHosts(whole, p.set, c, r.c.cfg.ClusterDomain)
		}
	}
	return nil
}

// resyncStalledPools touches each pool's StatefulSet whose pod has been missing for
// stalledPodGrace, as resyncStalledStatefulSet does for a cluster's one.
func (r *reconcile) resyncStalledPools(ctx context.Context) (time.Duration, error) {
	var recheck time.Duration
	for _, p := range r.pools {
		view := r.poolView(p)
		again, err := view.resyncStalledStatefulSet(ctx)
		if err != nil {
			return 0, err
		}
		recheck = sooner(recheck, again)
	}
	return recheck, nil
}
