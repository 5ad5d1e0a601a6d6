package controller

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// ensureOwned creates or updates the headless Service, the PodDisruptionBudget, the per-broker
// external Services and the StatefulSet; the last two follow currentReplicas.
func (c *Controller) ensureOwned(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, replicas int32) error {
	if err := c.ensureService(ctx, nc, bc); err != nil {
		return err
	}
	// Before the StatefulSet: a broker's Service exists by the time its pod does.
	if err := c.ensureExternalServices(ctx, nc, bc, max(replicas, 0)); err != nil {
		return err
	}
	if err := c.ensurePodDisruptionBudget(ctx, nc, bc); err != nil {
		return err
	}
	if replicas <= 0 {
		return nil // nothing to run yet
	}
	return c.ensureStatefulSet(ctx, nc, bc, replicas)
}

// ensureService creates bc's headless Service, or puts its ports and selector back.
func (c *Controller) ensureService(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster) error {
	svc := newService(bc)
	return c.applyService(ctx, nc, bc, svc, func(update *corev1.Service) {
		update.Spec.Ports, update.Spec.Selector, update.Spec.PublishNotReadyAddresses = svc.Spec.Ports, svc.Spec.Selector, svc.Spec.PublishNotReadyAddresses
	})
}

// ensurePodDisruptionBudget creates bc's PodDisruptionBudget, or puts its spec back.
func (c *Controller) ensurePodDisruptionBudget(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster) error {
	ns := bc.Namespace
	pdb := newPodDisruptionBudget(bc)
	existing, err := c.listers(nc).pdbs.PodDisruptionBudgets(ns).Get(bc.Name)
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
	if err := c.checkOwned(bc, existing); err != nil || (!specChanged(existing, pdb) && equality.Semantic.DeepEqual(existing.Spec, pdb.Spec)) {
		return err
	}
	update := existing.DeepCopy()
	update.Spec = pdb.Spec
	mergeMeta(&update.ObjectMeta, &pdb.ObjectMeta)
	if _, err := nc.podDisruptionBudgets(ns).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update PodDisruptionBudget %s: %w", clusterKey(bc), err)
	}
	return nil
}

// ensureStatefulSet creates bc's StatefulSet with replicas, or brings it in line.
func (c *Controller) ensureStatefulSet(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, replicas int32) error {
	ns := bc.Namespace
	existing, err := c.readStatefulSet(ctx, nc, ns, bc.Name)
	if apierrors.IsNotFound(err) {
		seeds := foundingSeeds(nil, replicas)
		sts := statefulSetWith(bc, replicas, seeds, c.templates.get(bc, seeds))
		if _, err := nc.statefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create StatefulSet %s: %w", clusterKey(bc), err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.checkOwned(bc, existing); err != nil {
		return err
	}
	seeds := foundingSeeds(existing, replicas)
	sts := statefulSetWith(bc, replicas, seeds, c.templates.get(bc, seeds))
	if update := updatedStatefulSet(existing, sts); update != nil {
		klog.FromContext(ctx).V(4).Info("Updating StatefulSet", "replicas", replicas, "specChanged", specChanged(existing, sts))
		if _, err := nc.statefulSets(ns).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update StatefulSet %s: %w", clusterKey(bc), err)
		}
	}
	return nil
}

// checkOwned refuses to touch an object of the same name that this BrokerCluster does not
// control.
func (c *Controller) checkOwned(bc *v1alpha1.BrokerCluster, obj metav1.Object) error {
	if ownedBy(obj, bc) {
		return nil
	}
	c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "ResourceExists", "%s exists and is not controlled by this BrokerCluster", obj.GetName())
	return fmt.Errorf("%s/%s exists and is not controlled by BrokerCluster %s", obj.GetNamespace(), obj.GetName(), clusterKey(bc))
}

// annotatePods records each listed broker's ID on its pod.
func (c *Controller) annotatePods(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod, view brokerView) error {
	for ordinal, pod := range pods {
		id := view.identities[ordinal]
		if !id.Known || id.Source == "annotation" {
			continue
		}
		want := strconv.Itoa(int(id.ID))
		if pod.Annotations[AnnotationNodeID] == want {
			continue
		}
		patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, AnnotationNodeID, want)
		if _, err := nc.pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("annotate pod %s/%s with its broker ID: %w", pod.Namespace, pod.Name, err)
		}
	}
	return nil
}
