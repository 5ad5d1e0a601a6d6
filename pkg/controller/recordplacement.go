package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// recordBrokerFacts writes each running broker's facts onto its pod, where they differ. A fact
// not known yet (a pod not placed, a load balancer without an address) is left out: the pod's
// config container waits, and the event that makes it known (the pod's or the Service's
// update) brings the cluster back here.
func (r *reconcile) recordBrokerFacts(ctx context.Context) error {
	nc, bc, pods := r.nc, r.bc, r.pods
	if len(objects.FactFiles(bc)) == 0 {
		return nil
	}
	for ordinal, pod := range pods {
		if ordinal >= int(bc.Status.CurrentReplicas) || pod.DeletionTimestamp != nil || pod.Spec.NodeName == "" {
			continue
		}
		want := map[string]string{}
		if addr, ok := r.externalAddressOf(ctx, objects.ExternalListener(bc), int32(ordinal), pod); ok && pod.Annotations[AnnotationExternalAddress] != addr {
			want[AnnotationExternalAddress] = addr
		}
		if addr, ok := r.externalAddressOf(ctx, objects.HTTPProxyExternal(bc), int32(ordinal), pod); ok && pod.Annotations[AnnotationHTTPProxyExternalAddress] != addr {
			want[AnnotationHTTPProxyExternalAddress] = addr
		}
		if bc.Spec.RackAwareness != nil && pod.Annotations[AnnotationRack] == "" {
			if rack, ok := r.rackOf(ctx, pod); ok {
				want[AnnotationRack] = rack
			}
		}
		if len(want) == 0 {
			continue
		}
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": want}}) // strings always marshal
		if _, err := nc.pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("record the broker facts of pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
	}
	return nil
}

// externalAddressOf is the address the broker in pod ordinal advertises on the external
// listener l (Kafka's, or the HTTP Proxy's, which shares its Service), if known.
func (r *reconcile) externalAddressOf(ctx context.Context, l *v1alpha1.ExternalListener, ordinal int32, pod *corev1.Pod) (string, bool) {
	c, nc, bc := r.c, r.nc, r.bc
	if l == nil {
		return "", false
	}
	facts := brokerconfig.BrokerFacts{HostIP: pod.Status.HostIP}
	if l.Type == v1alpha1.ExternalLoadBalancer {
		if svc, err := nc.listers().services.Services(bc.Namespace).Get(brokerconfig.ExternalServiceName(bc.Name, ordinal)); err == nil {
			facts.LoadBalancer = brokerconfig.LoadBalancerAddress(svc)
		}
	}
	addr, err := brokerconfig.ExternalAddress(l, ordinal, facts)
	switch {
	case errors.Is(err, brokerconfig.ErrAddressNotReady):
		klog.FromContext(ctx).V(4).Info("External address not known yet", "pod", pod.Name, "why", err)
		return "", false
	case err != nil:
		c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "ExternalAddressInvalid", "pod %s: %v", pod.Name, err)
		return "", false
	}
	return addr.String(), true
}

// rackOf reads the node the pod runs on (a GET by name: there is no node informer) and returns
// its rack label.
func (r *reconcile) rackOf(ctx context.Context, pod *corev1.Pod) (string, bool) {
	c, bc := r.c, r.bc
	node, err := c.cfg.KubeClient.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Cannot read the node of a broker pod; its rack waits", "pod", pod.Name, "node", pod.Spec.NodeName, "err", err)
		return "", false
	}
	rack, err := brokerconfig.Rack(bc.Spec.RackAwareness, node)
	if err != nil {
		c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "RackUnknown", "pod %s: %v; its broker waits for a rack", pod.Name, err)
		return "", false
	}
	return rack, true
}
