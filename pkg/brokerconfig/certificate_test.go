package brokerconfig

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The internal names end in the cluster DNS domain the operator runs with.
func TestCertificateNamesInAnotherClusterDomain(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "prod"}}
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{TLS: &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "ca"}}}
	dns, _ := CertificateNames(bc, KafkaTLSListeners(bc)[0], 3, "corp.example")
	want := []string{"kafka.prod.svc.corp.example", "*.kafka.prod.svc.corp.example", "kafka.prod.svc", "*.kafka.prod.svc", "kafka.prod", "*.kafka.prod"}
	if !slices.Equal(dns, want) {
		t.Errorf("names %q, want %q", dns, want)
	}
}

// The external listener's certificate names each advertised host of the brokers asked for (an
// IP as an IP address), besides the internal names; a NodePort listener without a host template
// names no node IP; the Secret is the Certificate's with an issuerRef, the spec's otherwise.
func TestCertificateNames(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "prod"}}
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{
		TLS: &v1alpha1.ListenerTLS{SecretName: "mine"},
		External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalAddresses,
			Addresses: []string{"Broker-A.example.com:9094", "203.0.113.7:9094", "broker-c.example.com:9094"},
			TLS:       &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "ca"}}},
	}
	listeners := KafkaTLSListeners(bc)
	if len(listeners) != 2 || listeners[0].SecretName(bc.Name) != "mine" || listeners[1].SecretName(bc.Name) != "kafka-kafka-external-tls" {
		t.Fatalf("listeners %+v", listeners)
	}
	internal := []string{"kafka.prod.svc.cluster.local", "*.kafka.prod.svc.cluster.local", "kafka.prod.svc", "*.kafka.prod.svc", "kafka.prod", "*.kafka.prod"}
	dns, ips := CertificateNames(bc, listeners[1], 2, admin.DefaultClusterDomain)
	if want := append(slices.Clone(internal), "broker-a.example.com"); !slices.Equal(dns, want) || !slices.Equal(ips, []string{"203.0.113.7"}) {
		t.Errorf("external names %q %q, want %q and the IP", dns, ips, want)
	}
	if dns, ips := CertificateNames(bc, listeners[0], 3, admin.DefaultClusterDomain); !slices.Equal(dns, internal) || ips != nil {
		t.Errorf("internal names %q %q", dns, ips)
	}
	bc.Spec.Kafka.External = &v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000},
		TLS: &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "ca"}}}
	if dns, ips := CertificateNames(bc, KafkaTLSListeners(bc)[1], 3, admin.DefaultClusterDomain); !slices.Equal(dns, internal) || ips != nil {
		t.Errorf("NodePort without a host template: %q %q", dns, ips)
	}
}
