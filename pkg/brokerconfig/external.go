package brokerconfig

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// ExternalListenerName is the name of the external Kafka listener in redpanda.yaml, as the
// chart names its default one (charts/redpanda values.yaml listeners.kafka.external.default).
const ExternalListenerName = "external"

// ErrAddressNotReady: the broker's external address is not known yet (its node has no IP, or its
// load balancer has no address). The caller waits for it; it is not a spec error.
var ErrAddressNotReady = errors.New("external address not known yet")

// Address is a host and port a broker advertises.
type Address struct {
	Host string
	Port int32
}

func (a Address) String() string { return a.Host + ":" + strconv.Itoa(int(a.Port)) }

// BrokerFacts are what the caller read about one broker's pod right before it asks: the IP of
// its node (pod status.hostIP) and the load balancer address of its external Service.
type BrokerFacts struct {
	HostIP string
	// LoadBalancer is the Service's status.loadBalancer.ingress[0] IP or hostname.
	LoadBalancer string
}

// ExternalAddress is the address the broker in pod ordinal advertises on the external listener:
// one that reaches that broker and no other.
//   - NodePort: its own node port (basePort + ordinal) on the host of hostTemplate, or on its
//     node's IP when there is no template.
//   - LoadBalancer: the listener port on the host of hostTemplate, or on its own load balancer.
//   - Addresses: the ordinal-th address.
func ExternalAddress(l *v1alpha1.ExternalListener, ordinal int32, facts BrokerFacts) (Address, error) {
	switch l.Type {
	case v1alpha1.ExternalNodePort:
		if l.NodePort == nil {
			return Address{}, errors.New("external listener of type NodePort without nodePort")
		}
		port := l.NodePort.BasePort + ordinal
		if l.NodePort.HostTemplate != "" {
			return Address{Host: expandHost(l.NodePort.HostTemplate, ordinal), Port: port}, nil
		}
		if facts.HostIP == "" {
			return Address{}, fmt.Errorf("broker %d: its pod has no host IP: %w", ordinal, ErrAddressNotReady)
		}
		return Address{Host: facts.HostIP, Port: port}, nil
	case v1alpha1.ExternalLoadBalancer:
		if lb := l.LoadBalancer; lb != nil && lb.HostTemplate != "" {
			return Address{Host: expandHost(lb.HostTemplate, ordinal), Port: ListenerPort(l)}, nil
		}
		if facts.LoadBalancer == "" {
			return Address{}, fmt.Errorf("broker %d: its load balancer has no address: %w", ordinal, ErrAddressNotReady)
		}
		return Address{Host: facts.LoadBalancer, Port: ListenerPort(l)}, nil
	case v1alpha1.ExternalAddresses:
		if int(ordinal) >= len(l.Addresses) {
			return Address{}, fmt.Errorf("broker %d has no address: spec.kafka.external.addresses has %d", ordinal, len(l.Addresses))
		}
		host, portText, _ := strings.Cut(l.Addresses[ordinal], ":")
		port, err := strconv.ParseInt(portText, 10, 32)
		if err != nil || port < 1 || port > 65535 {
			return Address{}, fmt.Errorf("address %q of broker %d has no valid port", l.Addresses[ordinal], ordinal)
		}
		return Address{Host: host, Port: int32(port)}, nil
	}
	return Address{}, fmt.Errorf("unknown external listener type %q", l.Type)
}

func expandHost(template string, ordinal int32) string {
	return strings.ReplaceAll(template, "{ordinal}", strconv.Itoa(int(ordinal)))
}

// DefaultExternalPort is the port the brokers listen on for the external listener when the spec
// leaves it out (the chart's listeners.kafka.external.default.port).
const DefaultExternalPort = 9094

// ListenerPort is the port the brokers listen on for the external listener.
func ListenerPort(l *v1alpha1.ExternalListener) int32 {
	if l.Port == 0 {
		return DefaultExternalPort
	}
	return l.Port
}

// PodNameLabel is the label the StatefulSet controller puts on each pod with its name; a
// per-broker Service selects its one pod by it, as the chart's LoadBalancer Services do.
const PodNameLabel = "statefulset.kubernetes.io/pod-name"

// ExternalServiceName is the name of the external Service of the broker in pod ordinal.
func ExternalServiceName(cluster string, ordinal int32) string {
	return fmt.Sprintf("%s-%d-external", cluster, ordinal)
}

// ExternalService is the Service that exposes one broker, or nil for type Addresses (the user
// routes the traffic). Owner references and labels are the caller's.
//   - NodePort: node port basePort + ordinal. Without a hostTemplate the broker advertises its
//     node's IP, so the Service keeps traffic on that node (externalTrafficPolicy Local, as the
//     chart's NodePort Service); with one, traffic may arrive on any node (Cluster).
//   - LoadBalancer: the chart's per-broker Service (service.loadbalancer.go): Local traffic
//     policy, the annotations and source ranges of the spec.
//
// Both publish not-ready addresses, as the chart does, so that a broker is reachable while its
// readiness waits on clients.
func ExternalService(bc *v1alpha1.BrokerCluster, ordinal int32) *corev1.Service {
	if bc.Spec.Kafka == nil || bc.Spec.Kafka.External == nil {
		return nil
	}
	l := bc.Spec.Kafka.External
	port := ListenerPort(l)
	pod := fmt.Sprintf("%s-%d", bc.Name, ordinal)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ExternalServiceName(bc.Name, ordinal), Namespace: bc.Namespace},
		Spec: corev1.ServiceSpec{
			Selector:                 map[string]string{PodNameLabel: pod},
			PublishNotReadyAddresses: true,
			ExternalTrafficPolicy:    corev1.ServiceExternalTrafficPolicyLocal,
			Ports: []corev1.ServicePort{{
				Name: "kafka-" + ExternalListenerName, Protocol: corev1.ProtocolTCP,
				Port: port, TargetPort: intstr.FromInt32(port),
			}},
		},
	}
	svc.Spec.Ports = append(svc.Spec.Ports, httpExternalPorts(bc, ordinal)...)
	switch l.Type {
	case v1alpha1.ExternalNodePort:
		if l.NodePort == nil {
			return nil
		}
		svc.Spec.Type = corev1.ServiceTypeNodePort
		svc.Spec.Ports[0].NodePort = l.NodePort.BasePort + ordinal
		if l.NodePort.HostTemplate != "" {
			svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
		}
	case v1alpha1.ExternalLoadBalancer:
		svc.Spec.Type = corev1.ServiceTypeLoadBalancer
		if lb := l.LoadBalancer; lb != nil {
			if len(lb.Annotations) > 0 {
				svc.Annotations = make(map[string]string, len(lb.Annotations))
				for k, v := range lb.Annotations {
					svc.Annotations[k] = v
				}
			}
			svc.Spec.LoadBalancerSourceRanges = append([]string(nil), lb.SourceRanges...)
		}
	default:
		return nil
	}
	return svc
}

// httpExternalPorts are the ports the HTTP APIs' external listeners add to the Service of the
// broker in pod ordinal, as the chart gives each broker's Service a port per listener
// (charts/redpanda service.loadbalancer.go, service.nodeport.go): named <api>-external, and
// with NodePort on the API's own node port, basePort + ordinal.
func httpExternalPorts(bc *v1alpha1.BrokerCluster, ordinal int32) []corev1.ServicePort {
	var out []corev1.ServicePort
	for _, a := range HTTPAPIs(bc) {
		view := a.ExternalView(bc)
		if view == nil {
			continue
		}
		p := corev1.ServicePort{Name: a.Name + "-" + ExternalListenerName, Protocol: corev1.ProtocolTCP,
			Port: a.ExternalPort, TargetPort: intstr.FromInt32(a.ExternalPort)}
		if view.Type == v1alpha1.ExternalNodePort && view.NodePort != nil {
			p.NodePort = view.NodePort.BasePort + ordinal
		}
		out = append(out, p)
	}
	return out
}

// LoadBalancerAddress is the first ingress address a LoadBalancer Service reports: its IP, or
// its hostname when it has no IP; "" while it has none.
func LoadBalancerAddress(svc *corev1.Service) string {
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			return in.IP
		}
		if in.Hostname != "" {
			return in.Hostname
		}
	}
	return ""
}
