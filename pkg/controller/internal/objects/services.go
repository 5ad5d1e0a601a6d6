package objects

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// Labels of the per-broker Services.
const (
	// LabelListener marks a Service of a Kafka listener; its value is the listener's name.
	LabelListener = "broker-operator.dev/listener"
	// LabelOrdinal is the pod ordinal of the broker a Service exposes.
	LabelOrdinal = "broker-operator.dev/ordinal"
)

// NewExternalService is the Service of the broker in pod ordinal with the operator's metadata,
// or nil when the spec asks for none.
func NewExternalService(bc *v1alpha1.BrokerCluster, ordinal int32) *corev1.Service {
	svc := brokerconfig.ExternalService(bc, ordinal)
	if svc == nil {
		return nil
	}
	meta := OwnedMeta(bc)
	meta.Name = svc.Name
	meta.Labels[LabelListener] = brokerconfig.ExternalListenerName
	meta.Labels[LabelOrdinal] = strconv.Itoa(int(ordinal))
	meta.Annotations = svc.Annotations
	svc.ObjectMeta = meta
	StampHash(&svc.ObjectMeta, struct {
		Spec        corev1.ServiceSpec
		Annotations map[string]string
	}{svc.Spec, svc.Annotations})
	return svc
}
