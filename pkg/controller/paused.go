package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// AnnotationPaused on a BrokerCluster, set to "true", pauses it (internal/step/paused.go).
const AnnotationPaused = step.AnnotationPaused

// Reasons of the Paused condition.
const (
	ReasonPaused  = step.ReasonPaused
	ReasonResumed = step.ReasonResumed
)

// holdPaused is the whole reconcile of a paused cluster: the Paused condition written once, with
// one event, and the disruption preview of the spec as it is, made from the status and the pods
// (step.Preview) whenever it changes; nothing else, neither read of the brokers nor write.
func (r *reconcile) holdPaused(ctx context.Context) (result, error) {
	klog.FromContext(ctx).V(2).Info("BrokerCluster is paused: nothing done", "resourceVersion", r.bc.ResourceVersion)
	var preview *v1alpha1.DisruptionPreview
	if step.HasPools(r.bc) {
		r.whole = r.bc
		if err := r.readPools(ctx); err != nil {
			return result{}, err
		}
		r.observePoolRollouts(step.RecordedConfigRestarts(r.bc))
		preview = r.poolsPreview(r.bc, nil)
	} else {
		if err := r.readPods(); err != nil {
			return result{}, err
		}
		r.observePods(step.RecordedConfigRestarts(r.bc))
		preview = step.Preview(r.bc, r.obs, step.RecordedOf(r.bc))
	}
	next := step.PausedStatus(r.bc, preview, r.c.cfg.Clock.Now())
	patch := step.StatusPatch(r.bc.Status, next, "")
	if patch == nil {
		return result{}, nil
	}
	if _, err := r.nc.brokerClusters(r.bc.Namespace).Patch(ctx, r.bc.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return result{}, fmt.Errorf("patch status of %s: %w", clusterKey(r.bc), err)
	}
	if !meta.IsStatusConditionTrue(r.bc.Status.Conditions, v1alpha1.ConditionPaused) {
		r.c.cfg.Recorder.Event(r.bc, corev1.EventTypeNormal, ReasonPaused, step.PausedMessage(r.bc))
	}
	return result{}, nil
}

// tellResumed says, once, that a paused cluster goes on; the status write of its step sets the
// condition False (step.NextStatus).
func (r *reconcile) tellResumed() {
	if meta.IsStatusConditionTrue(r.bc.Status.Conditions, v1alpha1.ConditionPaused) {
		r.c.cfg.Recorder.Event(r.bc, corev1.EventTypeNormal, ReasonResumed, "resumed: the annotation "+AnnotationPaused+" is no longer \"true\"; the operator goes on from what status records")
	}
}
