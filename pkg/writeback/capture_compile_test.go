package writeback_test

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applyappsv1 "k8s.io/client-go/applyconfigurations/apps/v1"
	applyautoscalingv1 "k8s.io/client-go/applyconfigurations/autoscaling/v1"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	typedappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// A wrapped client stands wherever the generated interface of a type without extra methods is
// expected; these assignments fail to compile if it stops doing so.
var (
	_ typedcorev1.ConfigMapInterface = (*writeback.Client[*corev1.ConfigMap, *corev1.ConfigMapList, *applycorev1.ConfigMapApplyConfiguration])(nil)
	_ typedcorev1.SecretInterface    = (*writeback.Client[*corev1.Secret, *corev1.SecretList, *applycorev1.SecretApplyConfiguration])(nil)
)

// statefulSets shows the per-type glue for an interface with extra methods: the wrapper
// provides the standard methods, and the three scale methods go to the original client
// unrecorded (they return an autoscaling/v1.Scale, not a StatefulSet).
type statefulSets struct {
	*writeback.Client[*appsv1.StatefulSet, *appsv1.StatefulSetList, *applyappsv1.StatefulSetApplyConfiguration]
	scale typedappsv1.StatefulSetInterface
}

func (s statefulSets) GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	return s.scale.GetScale(ctx, name, opts)
}

func (s statefulSets) UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	return s.scale.UpdateScale(ctx, name, scale, opts)
}

func (s statefulSets) ApplyScale(ctx context.Context, name string, scale *applyautoscalingv1.ScaleApplyConfiguration, opts metav1.ApplyOptions) (*autoscalingv1.Scale, error) {
	return s.scale.ApplyScale(ctx, name, scale, opts)
}

var _ typedappsv1.StatefulSetInterface = statefulSets{}
