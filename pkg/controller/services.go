package controller

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// The external listener's per-broker Services (brokerconfig.ExternalService): one for each
// ordinal below status.currentReplicas. They follow currentReplicas as the StatefulSet does, so
// a broker's Service is made before the StatefulSet grows to run it (ensureOwned writes the
// Services first), and goes only once currentReplicas has dropped below its ordinal, which
// happens when its broker's decommission has finished (stepFinish) or the broker was found gone.

// ensureExternalServices makes the Services of ordinals below replicas match the spec, and
// deletes those of ordinals at or above it (and all of them when the spec has no external
// Services).
func (r *reconcile) ensureExternalServices(ctx context.Context, replicas int32) error {
	bc := r.bc
	for ordinal := range replicas {
		svc := objects.NewExternalService(bc, ordinal)
		if svc == nil {
			break
		}
		if err := r.ensureExternalService(ctx, svc); err != nil {
			return err
		}
	}
	return r.deleteDepartedServices(ctx, replicas)
}

// ensureExternalService creates svc, or puts the operator's part of it back: the ports and
// selector, the exposure settings and the annotations the spec asks for.
func (r *reconcile) ensureExternalService(ctx context.Context, svc *corev1.Service) error {
	return r.applyService(ctx, svc, func(update *corev1.Service) {
		s, want := &update.Spec, svc.Spec
		s.Type, s.Ports, s.Selector, s.PublishNotReadyAddresses = want.Type, want.Ports, want.Selector, want.PublishNotReadyAddresses
		s.ExternalTrafficPolicy, s.LoadBalancerSourceRanges = want.ExternalTrafficPolicy, want.LoadBalancerSourceRanges
		maps.Copy(update.Annotations, svc.Annotations)
	})
}

// applyService creates svc if it is missing. If bc owns the existing one and its spec hash
// differs, a copy of it gets svc's labels and hash, then putBack copies the operator's fields
// from svc onto it; fields others set, such as the cluster IP, stay.
func (r *reconcile) applyService(ctx context.Context, svc *corev1.Service, putBack func(update *corev1.Service)) error {
	nc, bc := r.nc, r.bc
	existing, err := nc.listers().services.Services(bc.Namespace).Get(svc.Name)
	switch {
	case apierrors.IsNotFound(err):
		if _, err := nc.services(bc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Service %s/%s: %w", bc.Namespace, svc.Name, err)
		}
		return nil
	case err != nil:
		return err
	}
	if err := r.checkOwned(existing); err != nil || !objects.SpecChanged(existing, svc) {
		return err
	}
	update := existing.DeepCopy()
	objects.MergeMeta(&update.ObjectMeta, &svc.ObjectMeta)
	putBack(update)
	if _, err := nc.services(bc.Namespace).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update Service %s/%s: %w", bc.Namespace, svc.Name, err)
	}
	return nil
}

// deleteDepartedServices deletes bc's per-broker Services that no broker below replicas needs.
// The delete carries the Service's UID, so that a Service made again meanwhile is kept.
func (r *reconcile) deleteDepartedServices(ctx context.Context, replicas int32) error {
	nc, bc := r.nc, r.bc
	services, err := objects.ClusterServices(nc.listers().serviceIndex, bc, labels.Set{objects.LabelListener: brokerconfig.ExternalListenerName})
	if err != nil {
		return err
	}
	keep := objects.NewExternalService(bc, 0) != nil
	for _, svc := range services {
		ordinal, err := strconv.Atoi(svc.Labels[objects.LabelOrdinal])
		if !objects.OwnedBy(svc, bc) || (keep && err == nil && ordinal < int(replicas)) {
			continue
		}
		klog.FromContext(ctx).V(2).Info("Deleting the Service of a broker that has left", "service", svc.Name, "currentReplicas", replicas)
		uid := svc.UID
		err = nc.services(bc.Namespace).Delete(ctx, svc.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("delete Service %s/%s: %w", bc.Namespace, svc.Name, err)
		}
	}
	return nil
}
