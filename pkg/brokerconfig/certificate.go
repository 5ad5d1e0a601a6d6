package brokerconfig

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TLSListener is one listener that serves TLS, with the certificate source its spec gives.
type TLSListener struct {
	// API is KafkaAPI, SchemaRegistryAPI or HTTPProxyAPI; empty means KafkaAPI.
	API string
	// Listener is its name in redpanda.yaml: InternalListenerName or ExternalListenerName.
	Listener string
	TLS      *v1alpha1.ListenerTLS
}

// Name is the listener as the operator's objects and metrics name it: kafka-internal,
// kafka-external, schema-registry-internal, http-proxy-external and so on.
func (l TLSListener) Name() string { return l.APIName() + "-" + l.Listener }

// APIName is l.API, KafkaAPI when it is empty.
func (l TLSListener) APIName() string {
	if l.API == "" {
		return KafkaAPI
	}
	return l.API
}

// MountDir is where the brokers mount the listener's Secret.
func (l TLSListener) MountDir() string { return TLSMountDir(l.APIName(), l.Listener) }

// SecretName is the Secret the brokers mount for the listener: the one the spec names, or the
// one the operator's cert-manager Certificate writes (CertificateName).
func (l TLSListener) SecretName(cluster string) string {
	if l.TLS.IssuerRef != nil {
		return CertificateName(cluster, l)
	}
	return l.TLS.SecretName
}

// KafkaTLSListeners are the Kafka listeners of bc with TLS: internal first, then external.
func KafkaTLSListeners(bc *v1alpha1.BrokerCluster) []TLSListener {
	k := bc.Spec.Kafka
	if k == nil {
		return nil
	}
	var out []TLSListener
	if k.TLS != nil {
		out = append(out, TLSListener{Listener: InternalListenerName, TLS: k.TLS})
	}
	if l := k.External; l != nil && l.TLS != nil {
		out = append(out, TLSListener{Listener: ExternalListenerName, TLS: l.TLS})
	}
	return out
}

// TLSListeners are every listener of bc with TLS: the Kafka ones (KafkaTLSListeners), then the
// Schema Registry's and the HTTP Proxy's, each internal then external.
func TLSListeners(bc *v1alpha1.BrokerCluster) []TLSListener {
	out := KafkaTLSListeners(bc)
	for _, a := range HTTPAPIs(bc) {
		if a.TLS != nil {
			out = append(out, TLSListener{API: a.Name, Listener: InternalListenerName, TLS: a.TLS})
		}
		if a.External != nil && a.External.TLS != nil {
			out = append(out, TLSListener{API: a.Name, Listener: ExternalListenerName, TLS: a.External.TLS})
		}
	}
	return out
}

// CertificateName is the name of the cert-manager Certificate the operator makes for a listener
// with an issuerRef, and of the Secret cert-manager writes for it: <cluster>-<api>-<listener>-tls
// (<cluster>-kafka-internal-tls, <cluster>-schema-registry-external-tls).
func CertificateName(cluster string, l TLSListener) string {
	return fmt.Sprintf("%s-%s-tls", cluster, l.Name())
}

// CertificateNames are the subject alternative names of a listener's Certificate, for a cluster
// that runs up to replicas brokers.
//
// Every listener's certificate names the headless Service and, through wildcards, every pod
// behind it (<pod>.<service>.<namespace>.svc.<domain> and its shorter forms), as Redpanda's
// chart does for the certificates it makes (redpanda-data/redpanda-operator charts/redpanda
// certs.go, ClientCerts; operator v1 operator/pkg/resources/certmanager/certificate.go adds "*."
// to each FQDN likewise): the wildcards cover brokers added later, so that scaling never
// reissues the internal certificate. The external listener's also names each broker's
// advertised host, ordinals below replicas: the expanded hostTemplate, or the host of each
// address; an address that is an IP goes to IPs. A NodePort or LoadBalancer listener without a
// hostTemplate advertises node IPs or load balancer addresses known only once placed, and a
// certificate cannot follow them: such a listener needs a hostTemplate for clients that check
// the host name (operator v1 leaves the same gap, certmanager/type_helpers.go, "TLS certs for
// IPs").
func CertificateNames(bc *v1alpha1.BrokerCluster, l TLSListener, replicas int32, domain string) (dnsNames, ips []string) {
	for _, set := range serviceNames(bc) {
		svc := fmt.Sprintf("%s.%s", set, bc.Namespace)
		for _, host := range []string{admin.ServiceHostName(set, bc.Namespace, domain), svc + ".svc", svc} {
			dnsNames = append(dnsNames, host, "*."+host)
		}
	}
	external := externalOf(bc, l)
	if l.Listener != ExternalListenerName || external == nil {
		return dnsNames, nil
	}
	for ordinal := range replicas {
		host, ok := advertisedHost(external, ordinal)
		if !ok {
			break
		}
		if net.ParseIP(host) != nil {
			ips = appendNew(ips, host)
		} else {
			dnsNames = appendNew(dnsNames, strings.ToLower(host))
		}
	}
	return dnsNames, ips
}

// externalOf is the external listener l is, in the Kafka listener's shape; nil when the spec
// has none.
func externalOf(bc *v1alpha1.BrokerCluster, l TLSListener) *v1alpha1.ExternalListener {
	if l.APIName() == KafkaAPI {
		if bc.Spec.Kafka == nil {
			return nil
		}
		return bc.Spec.Kafka.External
	}
	for _, a := range HTTPAPIs(bc) {
		if a.Name == l.API {
			return a.ExternalView(bc)
		}
	}
	return nil
}

// advertisedHost is the host broker ordinal advertises on the external listener when the spec
// alone says it; false when it is known only once the broker is placed, or there is none.
func advertisedHost(l *v1alpha1.ExternalListener, ordinal int32) (string, bool) {
	template := ""
	switch l.Type {
	case v1alpha1.ExternalNodePort:
		if l.NodePort != nil {
			template = l.NodePort.HostTemplate
		}
	case v1alpha1.ExternalLoadBalancer:
		if l.LoadBalancer != nil {
			template = l.LoadBalancer.HostTemplate
		}
	case v1alpha1.ExternalAddresses:
		a, err := ExternalAddress(l, ordinal, BrokerFacts{})
		return a.Host, err == nil
	}
	if template == "" {
		return "", false
	}
	return expandHost(template, ordinal), true
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// serviceNames are the headless Services of bc's brokers: the cluster's, and with pools each
// pool's, <cluster>-<pool>, including a pool removed from the spec whose brokers are still
// leaving.
func serviceNames(bc *v1alpha1.BrokerCluster) []string {
	out := []string{bc.Name}
	for _, p := range bc.Spec.Pools {
		out = appendNew(out, bc.Name+"-"+p.Name)
	}
	for _, p := range bc.Status.Pools {
		if p.Name != v1alpha1.DefaultPoolName {
			out = appendNew(out, bc.Name+"-"+p.Name)
		}
	}
	return out
}
