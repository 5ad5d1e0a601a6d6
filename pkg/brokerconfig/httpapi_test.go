package brokerconfig

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Unset ports and authentication take Redpanda's and the chart's defaults; http_basic follows
// SASL; an external listener counts only with the Kafka one it rides on.
func TestHTTPAPIDefaults(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "prod"}}
	bc.Spec.SchemaRegistry = &v1alpha1.SchemaRegistrySpec{External: &v1alpha1.HTTPExternalListener{}}
	bc.Spec.HTTPProxy = &v1alpha1.HTTPProxySpec{External: &v1alpha1.HTTPExternalListener{}}
	apis := HTTPAPIs(bc)
	if len(apis) != 2 || apis[0].Name != SchemaRegistryAPI || apis[0].Port != 8081 || apis[1].Port != 8082 ||
		apis[0].Auth != v1alpha1.HTTPAuthNone || apis[0].External != nil || apis[1].External != nil {
		t.Fatalf("apis %+v", apis)
	}
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{}, External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer}}
	apis = HTTPAPIs(bc)
	if apis[0].Auth != v1alpha1.HTTPAuthBasic || apis[1].Auth != v1alpha1.HTTPAuthBasic {
		t.Errorf("auth %s %s, want http_basic with SASL", apis[0].Auth, apis[1].Auth)
	}
	if apis[0].ExternalPort != 8084 || apis[1].ExternalPort != 8083 {
		t.Errorf("external ports %d %d, want the chart's 8084 and 8083", apis[0].ExternalPort, apis[1].ExternalPort)
	}
	bc.Spec.HTTPProxy.AuthenticationMethod = v1alpha1.HTTPAuthNone
	if HTTPAPIs(bc)[1].Auth != v1alpha1.HTTPAuthNone {
		t.Error("the spec's none was overridden")
	}
}

// The proxy's external address is the Kafka listener's host on the proxy's own port: its node
// port, its load balancer port, or its own address.
func TestHTTPExternalAddresses(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "prod"}}
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort,
		NodePort: &v1alpha1.NodePortListener{BasePort: 31000, HostTemplate: "b{ordinal}.example.com"}}}
	bc.Spec.HTTPProxy = &v1alpha1.HTTPProxySpec{External: &v1alpha1.HTTPExternalListener{NodePort: &v1alpha1.HTTPNodePort{BasePort: 31600}}}
	a, _ := HTTPProxy(bc)
	if got, err := ExternalAddress(a.ExternalView(bc), 2, BrokerFacts{}); err != nil || got.String() != "b2.example.com:31602" {
		t.Errorf("NodePort: %v %v", got, err)
	}
	bc.Spec.Kafka.External = &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer}
	bc.Spec.HTTPProxy.External = &v1alpha1.HTTPExternalListener{}
	a, _ = HTTPProxy(bc)
	if got, err := ExternalAddress(a.ExternalView(bc), 1, BrokerFacts{LoadBalancer: "198.51.100.4"}); err != nil || got.String() != "198.51.100.4:8083" {
		t.Errorf("LoadBalancer: %v %v", got, err)
	}
	bc.Spec.Kafka.External = &v1alpha1.ExternalListener{Type: v1alpha1.ExternalAddresses, Addresses: []string{"k0:9094", "k1:9094"}}
	bc.Spec.HTTPProxy.External = &v1alpha1.HTTPExternalListener{Addresses: []string{"p0.example.com:443", "p1.example.com:443"}}
	a, _ = HTTPProxy(bc)
	if got, err := ExternalAddress(a.ExternalView(bc), 1, BrokerFacts{}); err != nil || got.String() != "p1.example.com:443" {
		t.Errorf("Addresses: %v %v", got, err)
	}
}

// An HTTP API's external certificate names the hosts it is reached on: the Kafka listener's
// host template, or its own addresses; its internal one the headless Service's names.
func TestHTTPCertificateNames(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "prod"}}
	issuer := &v1alpha1.IssuerReference{Name: "ca"}
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer,
		LoadBalancer: &v1alpha1.LoadBalancerListener{HostTemplate: "b{ordinal}.example.com"}}}
	bc.Spec.SchemaRegistry = &v1alpha1.SchemaRegistrySpec{TLS: &v1alpha1.ListenerTLS{IssuerRef: issuer},
		External: &v1alpha1.HTTPExternalListener{TLS: &v1alpha1.ListenerTLS{IssuerRef: issuer}}}
	listeners := TLSListeners(bc)
	if len(listeners) != 2 || listeners[0].Name() != "schema-registry-internal" || listeners[1].SecretName(bc.Name) != "kafka-schema-registry-external-tls" ||
		listeners[1].MountDir() != "/etc/tls/schema-registry/external" {
		t.Fatalf("listeners %+v", listeners)
	}
	internal := []string{"kafka.prod.svc.cluster.local", "*.kafka.prod.svc.cluster.local", "kafka.prod.svc", "*.kafka.prod.svc", "kafka.prod", "*.kafka.prod"}
	if dns, ips := CertificateNames(bc, listeners[0], 2, admin.DefaultClusterDomain); !slices.Equal(dns, internal) || ips != nil {
		t.Errorf("internal names %q %q", dns, ips)
	}
	if dns, _ := CertificateNames(bc, listeners[1], 2, admin.DefaultClusterDomain); !slices.Equal(dns, append(slices.Clone(internal), "b0.example.com", "b1.example.com")) {
		t.Errorf("external names %q, want the Kafka listener's hosts", dns)
	}
	bc.Spec.Kafka.External = &v1alpha1.ExternalListener{Type: v1alpha1.ExternalAddresses, Addresses: []string{"k0:9094", "k1:9094"}}
	bc.Spec.SchemaRegistry.External.Addresses = []string{"sr0.example.com:443", "192.0.2.9:443"}
	if dns, ips := CertificateNames(bc, TLSListeners(bc)[1], 2, admin.DefaultClusterDomain); !slices.Equal(dns, append(slices.Clone(internal), "sr0.example.com")) ||
		!slices.Equal(ips, []string{"192.0.2.9"}) {
		t.Errorf("Addresses: %q %q, want the Schema Registry's own addresses", dns, ips)
	}
}
