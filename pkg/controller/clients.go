package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	applyappsv1 "k8s.io/client-go/applyconfigurations/apps/v1"
	applyautoscalingv1 "k8s.io/client-go/applyconfigurations/autoscaling/v1"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	applypolicyv1 "k8s.io/client-go/applyconfigurations/policy/v1"
	appsclient "k8s.io/client-go/kubernetes/typed/apps/v1"
	coreclient "k8s.io/client-go/kubernetes/typed/core/v1"
	policyclient "k8s.io/client-go/kubernetes/typed/policy/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	applybrokers "github.com/broker-operator/broker-operator/pkg/generated/applyconfiguration/brokers/v1alpha1"
	brokersclient "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/typed/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// The write-back glue: one line per resource. Each returns a typed client whose writes are
// recorded in the namespace's overlay for that resource, so the next read sees them.

func (n *namespaceCache) brokerClusters(ns string) brokersclient.BrokerClusterInterface {
	return writeback.Wrap[*v1alpha1.BrokerCluster, *v1alpha1.BrokerClusterList, *applybrokers.BrokerClusterApplyConfiguration](n.brokerClient.BrokersV1alpha1().BrokerClusters(ns), ns, n.brokerClusterOverlay)
}

func (n *namespaceCache) statefulSets(ns string) appsclient.StatefulSetInterface {
	inner := n.kubeClient.AppsV1().StatefulSets(ns)
	return statefulSetClient{writeback.Wrap[*appsv1.StatefulSet, *appsv1.StatefulSetList, *applyappsv1.StatefulSetApplyConfiguration](inner, ns, n.statefulSetOverlay), inner}
}

func (n *namespaceCache) services(ns string) writeback.Interface[*corev1.Service, *corev1.ServiceList, *applycorev1.ServiceApplyConfiguration] {
	return writeback.Wrap[*corev1.Service, *corev1.ServiceList, *applycorev1.ServiceApplyConfiguration](serviceCollection{n.kubeClient.CoreV1().Services(ns)}, ns, n.serviceOverlay)
}

func (n *namespaceCache) podDisruptionBudgets(ns string) policyclient.PodDisruptionBudgetInterface {
	return writeback.Wrap[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList, *applypolicyv1.PodDisruptionBudgetApplyConfiguration](n.kubeClient.PolicyV1().PodDisruptionBudgets(ns), ns, n.pdbOverlay)
}

func (n *namespaceCache) serviceAccounts(ns string) writeback.Interface[*corev1.ServiceAccount, *corev1.ServiceAccountList, *applycorev1.ServiceAccountApplyConfiguration] {
	return writeback.Wrap[*corev1.ServiceAccount, *corev1.ServiceAccountList, *applycorev1.ServiceAccountApplyConfiguration](n.kubeClient.CoreV1().ServiceAccounts(ns), ns, n.serviceAccountOverlay)
}

func (n *namespaceCache) configMaps(ns string) writeback.Interface[*corev1.ConfigMap, *corev1.ConfigMapList, *applycorev1.ConfigMapApplyConfiguration] {
	return writeback.Wrap[*corev1.ConfigMap, *corev1.ConfigMapList, *applycorev1.ConfigMapApplyConfiguration](n.kubeClient.CoreV1().ConfigMaps(ns), ns, n.configMapOverlay)
}

func (n *namespaceCache) pods(ns string) writeback.Interface[*corev1.Pod, *corev1.PodList, *applycorev1.PodApplyConfiguration] {
	return writeback.Wrap[*corev1.Pod, *corev1.PodList, *applycorev1.PodApplyConfiguration](n.kubeClient.CoreV1().Pods(ns), ns, n.podOverlay)
}

// statefulSetClient is a capturing StatefulSetInterface: the write-back client for the
// standard methods, and the original client for the scale subresource, whose writes return a
// Scale and are not captured (the controller never writes through it).
type statefulSetClient struct {
	*writeback.Client[*appsv1.StatefulSet, *appsv1.StatefulSetList, *applyappsv1.StatefulSetApplyConfiguration]
	scale appsclient.StatefulSetInterface
}

var _ appsclient.StatefulSetInterface = statefulSetClient{}

func (c statefulSetClient) GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	return c.scale.GetScale(ctx, name, opts)
}

func (c statefulSetClient) UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	return c.scale.UpdateScale(ctx, name, scale, opts)
}

func (c statefulSetClient) ApplyScale(ctx context.Context, name string, scale *applyautoscalingv1.ScaleApplyConfiguration, opts metav1.ApplyOptions) (*autoscalingv1.Scale, error) {
	return c.scale.ApplyScale(ctx, name, scale, opts)
}

// serviceCollection completes ServiceInterface, which has no DeleteCollection (the Service API
// has none), so that it fits writeback.Interface. The controller never deletes collections.
type serviceCollection struct {
	coreclient.ServiceInterface
}

func (serviceCollection) DeleteCollection(context.Context, metav1.DeleteOptions, metav1.ListOptions) error {
	return apierrors.NewMethodNotSupported(schema.GroupResource{Resource: "services"}, "deletecollection")
}
