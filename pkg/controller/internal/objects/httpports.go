package objects

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// Ports of the HTTP APIs (brokerconfig.HTTPAPIs) on the broker container and the headless
// Service. Container port names are at most 15 characters; the internal ones are the APIs' names.
var externalPortNames = map[string]string{
	brokerconfig.SchemaRegistryAPI: "sr-external",
	brokerconfig.HTTPProxyAPI:      "proxy-external",
}

// httpContainerPorts are the broker container's ports of the HTTP APIs the spec turns on: each
// one's internal port, and its external one when it has an external listener. None without them,
// so that the pod template of a cluster without them is as before.
func httpContainerPorts(bc *v1alpha1.BrokerCluster) []corev1.ContainerPort {
	var out []corev1.ContainerPort
	for _, a := range brokerconfig.HTTPAPIs(bc) {
		out = append(out, corev1.ContainerPort{Name: a.Name, ContainerPort: a.Port, Protocol: corev1.ProtocolTCP})
		if a.External != nil {
			out = append(out, corev1.ContainerPort{Name: externalPortNames[a.Name], ContainerPort: a.ExternalPort, Protocol: corev1.ProtocolTCP})
		}
	}
	return out
}

// httpServicePorts are the headless Service's ports of the HTTP APIs, so that
// <cluster>.<namespace>.svc names every broker's Schema Registry and HTTP Proxy, and each pod's
// stable name reaches its own; the external listeners are on each broker's external Service
// (brokerconfig.ExternalService).
func httpServicePorts(bc *v1alpha1.BrokerCluster) []corev1.ServicePort {
	var out []corev1.ServicePort
	for _, a := range brokerconfig.HTTPAPIs(bc) {
		out = append(out, corev1.ServicePort{Name: a.Name, Port: a.Port, TargetPort: intstr.FromString(a.Name), Protocol: corev1.ProtocolTCP})
	}
	return out
}
