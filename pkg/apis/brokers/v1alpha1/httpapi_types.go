package v1alpha1

// The brokers' two HTTP APIs besides the admin API: the Schema Registry and the HTTP Proxy
// (Pandaproxy). Redpanda serves each only when its section is in redpanda.yaml
// (redpanda-data/redpanda src/v/redpanda/application.cc, config["schema_registry"] and
// config["pandaproxy"]), so each is off until its field is set, and a cluster without them keeps
// its pod template. Their shapes follow Redpanda's chart (redpanda-data/redpanda-operator
// charts/redpanda values.go, Listeners.SchemaRegistry and Listeners.HTTP).

// SchemaRegistrySpec turns on the brokers' Schema Registry.
type SchemaRegistrySpec struct {
	// Port of the internal listener on each broker (Redpanda's default, schema_registry_api in
	// src/v/pandaproxy/schema_registry/configuration.cc).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=8081
	// +optional
	Port int32 `json:"port,omitempty"`

	// TLS of the internal listener. Unset: plain HTTP.
	// +optional
	TLS *ListenerTLS `json:"tls,omitempty"`

	// AuthenticationMethod of both listeners: none, or http_basic (clients send a SCRAM user's
	// name and password, and a superuser is needed to change modes and global config). Unset:
	// http_basic when spec.kafka.sasl is set, none otherwise. http_basic needs spec.kafka.sasl.
	// +optional
	AuthenticationMethod HTTPAuthenticationMethod `json:"authenticationMethod,omitempty"`

	// External is a listener reachable from outside the Kubernetes cluster, on each broker's
	// external address of spec.kafka.external.
	// +optional
	External *HTTPExternalListener `json:"external,omitempty"`
}

// HTTPProxySpec turns on the brokers' HTTP Proxy (Pandaproxy), Kafka over REST.
type HTTPProxySpec struct {
	// Port of the internal listener on each broker (Redpanda's default, pandaproxy_api in
	// src/v/pandaproxy/rest/configuration.cc).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=8082
	// +optional
	Port int32 `json:"port,omitempty"`

	// TLS of the internal listener. Unset: plain HTTP.
	// +optional
	TLS *ListenerTLS `json:"tls,omitempty"`

	// AuthenticationMethod of both listeners: none, or http_basic (clients send a SCRAM user's
	// name and password, and the proxy talks to Kafka as that user). Unset: http_basic when
	// spec.kafka.sasl is set, none otherwise, as Redpanda's chart does. http_basic needs
	// spec.kafka.sasl.
	// +optional
	AuthenticationMethod HTTPAuthenticationMethod `json:"authenticationMethod,omitempty"`

	// External is a listener reachable from outside the Kubernetes cluster, on each broker's
	// external address of spec.kafka.external. Each broker advertises its own address there,
	// which the proxy returns as a consumer's base_uri.
	// +optional
	External *HTTPExternalListener `json:"external,omitempty"`
}

// HTTPAuthenticationMethod is Redpanda's authentication_method of an HTTP listener
// (src/v/config/rest_authn_endpoint.h, rest_authn_method).
// +kubebuilder:validation:Enum=none;http_basic
type HTTPAuthenticationMethod string

// HTTP authentication methods.
const (
	HTTPAuthNone  HTTPAuthenticationMethod = "none"
	HTTPAuthBasic HTTPAuthenticationMethod = "http_basic"
)

// HTTPExternalListener is an HTTP listener for clients outside the Kubernetes cluster. It is
// exposed the way spec.kafka.external is (its type, Services and hosts): a port of each broker's
// Service <cluster>-<ordinal>-external, on the host that broker advertises for Kafka.
type HTTPExternalListener struct {
	// Port the brokers listen on for this listener, inside the pod. Unset: 8084 for the Schema
	// Registry and 8083 for the HTTP Proxy, as Redpanda's chart.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port int32 `json:"port,omitempty"`

	// NodePort, with spec.kafka.external.type NodePort (and only then): each broker's node
	// port is basePort + its pod's ordinal, as for Kafka.
	// +optional
	NodePort *HTTPNodePort `json:"nodePort,omitempty"`

	// Addresses, with spec.kafka.external.type Addresses (and only then): each broker's
	// host:port, in pod ordinal order, which the user routes to its pod on port.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=261
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9.-]+:[0-9]{1,5}$`
	Addresses []string `json:"addresses,omitempty"`

	// TLS of this listener. Unset: plain HTTP.
	// +optional
	TLS *ListenerTLS `json:"tls,omitempty"`
}

// HTTPNodePort gives each broker its own node port for an HTTP listener.
type HTTPNodePort struct {
	// BasePort is the node port of the broker in pod 0.
	// +kubebuilder:validation:Minimum=30000
	// +kubebuilder:validation:Maximum=32767
	BasePort int32 `json:"basePort"`
}
