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

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// The external listener's per-broker Services (brokerconfig.ExternalService): one for each
// ordinal below status.currentReplicas. They follow currentReplicas as the StatefulSet does, so
// a broker's Service is made before the StatefulSet grows to run it (ensureOwned writes the
// Services first), and goes only once currentReplicas has dropped below its ordinal, which
// happens when its broker's decommission has finished (stepFinish) or the broker was found gone.

// Labels of the per-broker Services.
const (
	// LabelListener marks a Service of a Kafka listener; its value is the listener's name.
	LabelListener = "broker-operator.dev/listener"
	// LabelOrdinal is the pod ordinal of the broker a Service exposes.
	LabelOrdinal = "broker-operator.dev/ordinal"
)

// newExternalService is the Service of the broker in pod ordinal with the operator's metadata,
// or nil when the spec asks for none.
func newExternalService(bc *v1alpha1.BrokerCluster, ordinal int32) *corev1.Service {
	svc := brokerconfig.ExternalService(bc, ordinal)
	if svc == nil {
		return nil
	}
	meta := ownedMeta(bc)
	meta.Name = svc.Name
	meta.Labels[LabelListener] = brokerconfig.ExternalListenerName
	meta.Labels[LabelOrdinal] = strconv.Itoa(int(ordinal))
	meta.Annotations = svc.Annotations
	svc.ObjectMeta = meta
	stampHash(&svc.ObjectMeta, struct {
		Spec        corev1.ServiceSpec
		Annotations map[string]string
	}{svc.Spec, svc.Annotations})
	return svc
}

// ensureExternalServices makes the Services of ordinals below replicas match the spec, and
// deletes those of ordinals at or above it (and all of them when the spec has no external
// Services).
func (c *Controller) ensureExternalServices(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, replicas int32) error {
	for ordinal := range replicas {
		svc := newExternalService(bc, ordinal)
		if svc == nil {
			break
		}
		if err := c.ensureExternalService(ctx, nc, bc, svc); err != nil {
			return err
		}
	}
	return c.deleteDepartedServices(ctx, nc, bc, replicas)
}

// ensureExternalService creates svc, or puts the operator's part of it back: the ports and
// selector, the exposure settings and the annotations the spec asks for.
func (c *Controller) ensureExternalService(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, svc *corev1.Service) error {
	return c.applyService(ctx, nc, bc, svc, func(update *corev1.Service) {
		s, want := &update.Spec, svc.Spec
		s.Type, s.Ports, s.Selector, s.PublishNotReadyAddresses = want.Type, want.Ports, want.Selector, want.PublishNotReadyAddresses
		s.ExternalTrafficPolicy, s.LoadBalancerSourceRanges = want.ExternalTrafficPolicy, want.LoadBalancerSourceRanges
		maps.Copy(update.Annotations, svc.Annotations)
	})
}

// applyService creates svc if it is missing. If bc owns the existing one and its spec hash
// differs, a copy of it gets svc's labels and hash, then putBack copies the operator's fields
// from svc onto it; fields others set, such as the cluster IP, stay.
func (c *Controller) applyService(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, svc *corev1.Service, putBack func(update *corev1.Service)) error {
	existing, err := c.listers(nc).services.Services(bc.Namespace).Get(svc.Name)
	switch {
	case apierrors.IsNotFound(err):
		if _, err := nc.services(bc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Service %s/%s: %w", bc.Namespace, svc.Name, err)
		}
		return nil
	case err != nil:
		return err
	}
	if err := c.checkOwned(bc, existing); err != nil || !specChanged(existing, svc) {
		return err
	}
	update := existing.DeepCopy()
	mergeMeta(&update.ObjectMeta, &svc.ObjectMeta)
	putBack(update)
	if _, err := nc.services(bc.Namespace).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update Service %s/%s: %w", bc.Namespace, svc.Name, err)
	}
	return nil
}

// deleteDepartedServices deletes bc's per-broker Services that no broker below replicas needs.
// The delete carries the Service's UID, so that a Service made again meanwhile is kept.
func (c *Controller) deleteDepartedServices(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, replicas int32) error {
	services, err := clusterServices(c.listers(nc).serviceIndex, bc, labels.Set{LabelListener: brokerconfig.ExternalListenerName})
	if err != nil {
		return err
	}
	keep := newExternalService(bc, 0) != nil
	for _, svc := range services {
		ordinal, err := strconv.Atoi(svc.Labels[LabelOrdinal])
		if !ownedBy(svc, bc) || (keep && err == nil && ordinal < int(replicas)) {
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
