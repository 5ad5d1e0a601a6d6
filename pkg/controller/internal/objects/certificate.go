package objects

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// cert-manager's Certificate, written through the dynamic client so that cert-manager's Go
// module stays out of the operator's. The fields are those of cert-manager.io/v1
// (github.com/cert-manager/cert-manager pkg/apis/certmanager/v1/types_certificate.go,
// CertificateSpec): secretName, issuerRef, dnsNames, ipAddresses, usages.
var (
	CertificateGVR  = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	certificateKind = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}
)

// CertManagerGroup is the API group of cert-manager's issuers, which an issuerRef names.
const CertManagerGroup = "cert-manager.io"

// ListenerCertificate is a listener whose certificate the operator asks cert-manager for.
type ListenerCertificate struct {
	Listener brokerconfig.TLSListener
	// Object is the Certificate as the operator writes it, its spec hash stamped.
	Object *unstructured.Unstructured
}

// Certificates are the Certificates bc's listeners with an issuerRef need, for up to replicas
// brokers named in the cluster DNS domain; none when no listener names an issuer.
func Certificates(bc *v1alpha1.BrokerCluster, replicas int32, domain string) []ListenerCertificate {
	var out []ListenerCertificate
	for _, l := range brokerconfig.TLSListeners(bc) {
		if l.TLS.IssuerRef != nil {
			out = append(out, ListenerCertificate{Listener: l, Object: newCertificate(bc, l, replicas, domain)})
		}
	}
	return out
}

// newCertificate is the Certificate of listener l: its Secret has the Certificate's name, it is
// signed by the issuer the spec names, for the names brokerconfig.CertificateNames gives, and
// usable for server authentication (and client authentication when the listener requires
// client certificates, so that the brokers' certificate also serves a client of the same
// CA). The key usages are cert-manager's defaults (digital signature, key encipherment), which
// setting usages would otherwise drop.
func newCertificate(bc *v1alpha1.BrokerCluster, l brokerconfig.TLSListener, replicas int32, domain string) *unstructured.Unstructured {
	name := brokerconfig.CertificateName(bc.Name, l)
	dnsNames, ips := brokerconfig.CertificateNames(bc, l, replicas, domain)
	kind := l.TLS.IssuerRef.Kind
	if kind == "" {
		kind = "Issuer"
	}
	usages := []any{"digital signature", "key encipherment", "server auth"}
	if l.TLS.RequireClientAuth {
		usages = append(usages, "client auth")
	}
	spec := map[string]any{
		"secretName": name,
		"issuerRef":  map[string]any{"name": l.TLS.IssuerRef.Name, "kind": kind, "group": CertManagerGroup},
		"dnsNames":   toAny(dnsNames),
		"usages":     usages,
	}
	if len(ips) > 0 {
		spec["ipAddresses"] = toAny(ips)
	}
	meta := OwnedMeta(bc)
	meta.Name = name
	meta.Labels[LabelListener] = l.Listener
	if l.API != "" {
		meta.Labels[LabelListener] = l.Name() // the Kafka listeners' keep their label as it was
	}
	StampHash(&meta, spec)
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	obj.SetGroupVersionKind(certificateKind)
	obj.SetName(meta.Name)
	obj.SetNamespace(meta.Namespace)
	obj.SetLabels(meta.Labels)
	obj.SetAnnotations(meta.Annotations)
	obj.SetOwnerReferences(meta.OwnerReferences)
	return obj
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
