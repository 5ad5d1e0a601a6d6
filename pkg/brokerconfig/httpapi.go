package brokerconfig

import (
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Names of the HTTP APIs, as the operator's objects, ports, mounts and metrics name them.
const (
	SchemaRegistryAPI = "schema-registry"
	HTTPProxyAPI      = "http-proxy"
	// KafkaAPI names the Kafka listeners the same way.
	KafkaAPI = "kafka"
)

// Ports of the HTTP APIs when the spec leaves them out. The internal ones are Redpanda's own
// (src/v/pandaproxy/schema_registry/configuration.cc, schema_registry_api;
// src/v/pandaproxy/rest/configuration.cc, pandaproxy_api) and the CRD's defaults; the external
// ones are Redpanda's chart's (charts/redpanda/chart/values.yaml,
// listeners.schemaRegistry.external.default.port and listeners.http.external.default.port).
const (
	DefaultSchemaRegistryPort         = 8081
	DefaultHTTPProxyPort              = 8082
	DefaultSchemaRegistryExternalPort = 8084
	DefaultHTTPProxyExternalPort      = 8083
)

// HTTPAPI is the Schema Registry or the HTTP Proxy as the spec asks for it, with its defaults
// worked out.
type HTTPAPI struct {
	// Name is SchemaRegistryAPI or HTTPProxyAPI.
	Name string
	Port int32
	TLS  *v1alpha1.ListenerTLS
	// Auth is the authentication_method of both listeners.
	Auth     v1alpha1.HTTPAuthenticationMethod
	External *v1alpha1.HTTPExternalListener
	// ExternalPort is the port the brokers listen on for External.
	ExternalPort int32
}

// HTTPAPIs are the HTTP APIs bc turns on: the Schema Registry, then the HTTP Proxy.
func HTTPAPIs(bc *v1alpha1.BrokerCluster) []HTTPAPI {
	var out []HTTPAPI
	if s := bc.Spec.SchemaRegistry; s != nil {
		out = append(out, newHTTPAPI(bc, SchemaRegistryAPI, s.Port, DefaultSchemaRegistryPort, s.TLS, s.AuthenticationMethod, s.External, DefaultSchemaRegistryExternalPort))
	}
	if p := bc.Spec.HTTPProxy; p != nil {
		out = append(out, newHTTPAPI(bc, HTTPProxyAPI, p.Port, DefaultHTTPProxyPort, p.TLS, p.AuthenticationMethod, p.External, DefaultHTTPProxyExternalPort))
	}
	return out
}

// HTTPProxy is bc's HTTP Proxy, if it has one.
func HTTPProxy(bc *v1alpha1.BrokerCluster) (HTTPAPI, bool) {
	for _, a := range HTTPAPIs(bc) {
		if a.Name == HTTPProxyAPI {
			return a, true
		}
	}
	return HTTPAPI{}, false
}

func newHTTPAPI(bc *v1alpha1.BrokerCluster, name string, port, defaultPort int32, tls *v1alpha1.ListenerTLS,
	auth v1alpha1.HTTPAuthenticationMethod, ext *v1alpha1.HTTPExternalListener, defaultExternalPort int32) HTTPAPI {
	a := HTTPAPI{Name: name, Port: port, TLS: tls, Auth: auth, ExternalPort: defaultExternalPort}
	if a.Port == 0 {
		a.Port = defaultPort
	}
	if a.Auth == "" {
		// As the chart does for the HTTP Proxy with SASL on (configmap.tpl.go,
		// pandaProxyListener); the Schema Registry is given the same, so that SASL never leaves
		// an open door to the cluster's schemas.
		a.Auth = v1alpha1.HTTPAuthNone
		if bc.Spec.Kafka != nil && bc.Spec.Kafka.SASL != nil {
			a.Auth = v1alpha1.HTTPAuthBasic
		}
	}
	// The external listener only counts with the Kafka one whose Services and hosts it uses; the
	// CRD refuses it alone.
	if ext != nil && bc.Spec.Kafka != nil && bc.Spec.Kafka.External != nil {
		a.External = ext
		if ext.Port != 0 {
			a.ExternalPort = ext.Port
		}
	}
	return a
}

// ExternalView is a's external listener in the shape of the Kafka one it rides on: its type and
// hosts, a's own port, node ports and addresses. ExternalAddress and the certificate names take
// it as they take the Kafka listener. Nil without an external listener.
func (a HTTPAPI) ExternalView(bc *v1alpha1.BrokerCluster) *v1alpha1.ExternalListener {
	if a.External == nil {
		return nil
	}
	k := bc.Spec.Kafka.External
	view := &v1alpha1.ExternalListener{Type: k.Type, Port: a.ExternalPort, LoadBalancer: k.LoadBalancer, Addresses: a.External.Addresses}
	if k.NodePort != nil && a.External.NodePort != nil {
		view.NodePort = &v1alpha1.NodePortListener{BasePort: a.External.NodePort.BasePort, HostTemplate: k.NodePort.HostTemplate}
	}
	return view
}
