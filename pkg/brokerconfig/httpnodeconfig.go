package brokerconfig

import (
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The redpanda.yaml sections of the HTTP APIs: `schema_registry` and `pandaproxy` with their
// listeners (src/v/pandaproxy/schema_registry/configuration.cc, src/v/pandaproxy/rest/
// configuration.cc), and the Kafka client each uses to reach the brokers, `schema_registry_client`
// and `pandaproxy_client` (src/v/kafka/client/configuration.cc). api_doc_dir keeps Redpanda's
// default, /usr/share/redpanda/proxy-api-doc, which Redpanda's images ship.

// RESTListener is config/rest_authn_endpoint.h's rest_authn_endpoint: a listener with its
// authentication_method, none or http_basic.
type RESTListener struct {
	Name                 string `json:"name"`
	Address              string `json:"address"`
	Port                 int32  `json:"port"`
	AuthenticationMethod string `json:"authentication_method"`
}

// SocketAddress is net::unresolved_address as YAML (kafka client brokers).
type SocketAddress struct {
	Address string `json:"address"`
	Port    int32  `json:"port"`
}

// ClientTLS is config/tls_config.h's tls_config: the TLS a Kafka client dials with.
type ClientTLS struct {
	Enabled           bool   `json:"enabled"`
	CertFile          string `json:"cert_file,omitempty"`
	KeyFile           string `json:"key_file,omitempty"`
	TruststoreFile    string `json:"truststore_file,omitempty"`
	RequireClientAuth bool   `json:"require_client_auth"`
}

// KafkaClient is the Kafka client of an HTTP API.
type KafkaClient struct {
	Brokers   []SocketAddress `json:"brokers"`
	BrokerTLS *ClientTLS      `json:"broker_tls,omitempty"`
}

// SchemaRegistryConfig is redpanda.yaml's `schema_registry` section. The Schema Registry
// advertises no address: its clients are given a URL.
type SchemaRegistryConfig struct {
	SchemaRegistryAPI    []RESTListener `json:"schema_registry_api"`
	SchemaRegistryAPITLS []ListenerTLS  `json:"schema_registry_api_tls,omitempty"`
}

// PandaproxyConfig is redpanda.yaml's `pandaproxy` section. The proxy puts the advertised
// address of the listener a request came in on into a consumer's base_uri, matched by name
// (src/v/pandaproxy/server.cc, server::start; rest/handlers.cc, make_consumer_uri_base); without
// one it would hand out 0.0.0.0.
type PandaproxyConfig struct {
	PandaproxyAPI           []RESTListener `json:"pandaproxy_api"`
	AdvertisedPandaproxyAPI []Listener     `json:"advertised_pandaproxy_api"`
	PandaproxyAPITLS        []ListenerTLS  `json:"pandaproxy_api_tls,omitempty"`
}

// HTTPConfig is what the HTTP APIs add to one broker's redpanda.yaml; nil fields are left out.
type HTTPConfig struct {
	SchemaRegistry       *SchemaRegistryConfig
	SchemaRegistryClient *KafkaClient
	Pandaproxy           *PandaproxyConfig
	PandaproxyClient     *KafkaClient
}

// HTTPNodeConfig is the HTTP APIs' part of the redpanda.yaml of the broker whose stable DNS name
// is internalHost. proxyExternal is the address it advertises on the HTTP Proxy's external
// listener (see HTTPExternalAddress), nil when there is none.
func HTTPNodeConfig(bc *v1alpha1.BrokerCluster, internalHost string, proxyExternal *Address) HTTPConfig {
	var out HTTPConfig
	for _, a := range HTTPAPIs(bc) {
		listen, tls := a.listeners()
		switch a.Name {
		case SchemaRegistryAPI:
			out.SchemaRegistry = &SchemaRegistryConfig{SchemaRegistryAPI: listen, SchemaRegistryAPITLS: tls}
			out.SchemaRegistryClient = kafkaClient(bc, internalHost)
		case HTTPProxyAPI:
			p := &PandaproxyConfig{PandaproxyAPI: listen, PandaproxyAPITLS: tls,
				AdvertisedPandaproxyAPI: []Listener{{Name: InternalListenerName, Address: internalHost, Port: a.Port}}}
			if a.External != nil && proxyExternal != nil {
				p.AdvertisedPandaproxyAPI = append(p.AdvertisedPandaproxyAPI, Listener{Name: ExternalListenerName, Address: proxyExternal.Host, Port: proxyExternal.Port})
			}
			out.Pandaproxy = p
			out.PandaproxyClient = kafkaClient(bc, internalHost)
		}
	}
	return out
}

// listeners are a's listeners, internal then external, both with its authentication method,
// and their TLS.
func (a HTTPAPI) listeners() ([]RESTListener, []ListenerTLS) {
	auth := string(a.Auth)
	listen := []RESTListener{{Name: InternalListenerName, Address: "0.0.0.0", Port: a.Port, AuthenticationMethod: auth}}
	var tls []ListenerTLS
	if a.TLS != nil {
		tls = append(tls, listenerTLSIn(TLSMountDir(a.Name, InternalListenerName), InternalListenerName, a.TLS))
	}
	if a.External != nil {
		listen = append(listen, RESTListener{Name: ExternalListenerName, Address: "0.0.0.0", Port: a.ExternalPort, AuthenticationMethod: auth})
		if a.External.TLS != nil {
			tls = append(tls, listenerTLSIn(TLSMountDir(a.Name, ExternalListenerName), ExternalListenerName, a.External.TLS))
		}
	}
	return listen, tls
}

// kafkaClient is the Kafka client of an HTTP API: the broker's own internal Kafka listener, by
// the name its certificate holds, with that listener's TLS. Without the section Redpanda would
// dial kafka_api[0] with the listener's server TLS, trusting the system's CAs rather than the
// listener's (src/v/redpanda/application.cc, set_local_kafka_client_config); Redpanda's chart
// writes the section likewise (configmap.tpl.go, kafkaClient). With SASL on, no credentials are
// given: Redpanda then makes ephemeral ones for the API's own principal
// (src/v/kafka/client/config_utils.cc, create_client_credentials).
func kafkaClient(bc *v1alpha1.BrokerCluster, internalHost string) *KafkaClient {
	c := &KafkaClient{Brokers: []SocketAddress{{Address: internalHost, Port: KafkaInternalPort}}}
	if k := bc.Spec.Kafka; k != nil && k.TLS != nil {
		dir := TLSDir + "/" + InternalListenerName
		c.BrokerTLS = &ClientTLS{Enabled: true, TruststoreFile: dir + "/ca.crt"}
		if k.TLS.RequireClientAuth {
			// The listener's own certificate, which a cert-manager Certificate makes usable for
			// client authentication when the listener requires it (certificate.go).
			c.BrokerTLS.CertFile, c.BrokerTLS.KeyFile = dir+"/tls.crt", dir+"/tls.key"
		}
	}
	return c
}

// TLSMountDir is where the certificate of an API's listener is mounted in the broker pod: the
// Kafka listeners' under TLSDir, as before, and the HTTP APIs' under /etc/tls/<api>/<listener>.
func TLSMountDir(api, listener string) string {
	if api == KafkaAPI {
		return TLSDir + "/" + listener
	}
	return "/etc/tls/" + api + "/" + listener
}
