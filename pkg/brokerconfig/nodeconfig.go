package brokerconfig

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Listener names and mount points in the broker pod.
const (
	InternalListenerName = "internal"
	// KafkaInternalPort is the internal Kafka listener's port.
	KafkaInternalPort = 9092
	// TLSDir is where a listener's certificate is mounted: TLSDir/<listener name>/tls.crt, as the
	// chart mounts each certificate under /etc/tls/certs/<name> (values.go, ServerMountPoint).
	TLSDir = "/etc/tls/kafka"
	// DefaultRackLabel is the node label rack awareness reads unless told otherwise (the
	// chart's rackAwareness.nodeAnnotation default).
	DefaultRackLabel = "topology.kubernetes.io/zone"
)

// Listener is a named Kafka listener (config/broker_endpoint.h, kafka_api entries).
type Listener struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Port    int32  `json:"port"`
	// AuthenticationMethod is "sasl" when the listener requires SASL; empty means the
	// cluster-wide enable_sasl decides.
	AuthenticationMethod string `json:"authentication_method,omitempty"`
}

// ListenerTLS is config/tls_config.h's endpoint_tls_config (kafka_api_tls entries).
type ListenerTLS struct {
	Name              string `json:"name"`
	Enabled           bool   `json:"enabled"`
	CertFile          string `json:"cert_file"`
	KeyFile           string `json:"key_file"`
	TruststoreFile    string `json:"truststore_file,omitempty"`
	RequireClientAuth bool   `json:"require_client_auth"`
}

// KafkaConfig is the Kafka part of one broker's redpanda.yaml `redpanda` section, plus its rack.
type KafkaConfig struct {
	KafkaAPI           []Listener    `json:"kafka_api"`
	AdvertisedKafkaAPI []Listener    `json:"advertised_kafka_api"`
	KafkaAPITLS        []ListenerTLS `json:"kafka_api_tls,omitempty"`
	Rack               string        `json:"rack,omitempty"`
}

// KafkaNodeConfig is the Kafka listeners of the broker in pod ordinal: the internal listener on
// internalHost (the pod's stable DNS name), the external one, when the spec has it, advertising
// external (see ExternalAddress); TLS per listener from the mounted certificates; SASL on every
// listener when spec.kafka.sasl is set (the chart's default authenticationMethod "sasl" with
// auth.sasl.enabled); the rack when rack awareness is on.
func KafkaNodeConfig(bc *v1alpha1.BrokerCluster, internalHost string, external *Address, rack string) KafkaConfig {
	k := bc.Spec.Kafka
	if k == nil {
		k = &v1alpha1.KafkaSpec{}
	}
	auth := ""
	if k.SASL != nil {
		auth = "sasl"
	}
	cfg := KafkaConfig{
		KafkaAPI:           []Listener{{Name: InternalListenerName, Address: "0.0.0.0", Port: KafkaInternalPort, AuthenticationMethod: auth}},
		AdvertisedKafkaAPI: []Listener{{Name: InternalListenerName, Address: internalHost, Port: KafkaInternalPort}},
	}
	if k.TLS != nil {
		cfg.KafkaAPITLS = append(cfg.KafkaAPITLS, listenerTLS(InternalListenerName, k.TLS))
	}
	if l := k.External; l != nil && external != nil {
		cfg.KafkaAPI = append(cfg.KafkaAPI, Listener{Name: ExternalListenerName, Address: "0.0.0.0", Port: ListenerPort(l), AuthenticationMethod: auth})
		cfg.AdvertisedKafkaAPI = append(cfg.AdvertisedKafkaAPI, Listener{Name: ExternalListenerName, Address: external.Host, Port: external.Port})
		if l.TLS != nil {
			cfg.KafkaAPITLS = append(cfg.KafkaAPITLS, listenerTLS(ExternalListenerName, l.TLS))
		}
	}
	if bc.Spec.RackAwareness != nil {
		cfg.Rack = rack
	}
	return cfg
}

func listenerTLS(name string, t *v1alpha1.ListenerTLS) ListenerTLS {
	return listenerTLSIn(TLSMountDir(KafkaAPI, name), name, t)
}

// listenerTLSIn is the TLS entry of the listener name whose certificate is mounted in dir.
func listenerTLSIn(dir, name string, t *v1alpha1.ListenerTLS) ListenerTLS {
	out := ListenerTLS{Name: name, Enabled: true, CertFile: dir + "/tls.crt", KeyFile: dir + "/tls.key", RequireClientAuth: t.RequireClientAuth}
	if t.RequireClientAuth {
		out.TruststoreFile = dir + "/ca.crt"
	}
	return out
}

// ClusterProperties are the cluster properties the operator itself sets from the spec
// (written into .bootstrap.yaml at creation and through the admin API afterwards): enable_sasl
// and sasl_mechanisms with spec.kafka.sasl, enable_rack_awareness with spec.rackAwareness.
// spec.clusterConfig cannot name them (the CRD refuses it).
func ClusterProperties(bc *v1alpha1.BrokerCluster) map[string]any {
	out := map[string]any{}
	if bc.Spec.Kafka != nil && bc.Spec.Kafka.SASL != nil {
		out["enable_sasl"] = true
		out["sasl_mechanisms"] = []string{"SCRAM"}
	}
	if bc.Spec.RackAwareness != nil {
		out["enable_rack_awareness"] = true
	}
	return out
}

// BootstrapUser is the RP_BOOTSTRAP_USER value, username:password[:mechanism]
// (src/v/cluster/security_frontend.cc, get_bootstrap_user_creds_from_env), with the spec's SCRAM
// mechanism when SASL is on; user and password are the names of environment variables the
// kubelet expands.
func BootstrapUser(bc *v1alpha1.BrokerCluster, userVar, passwordVar string) string {
	v := fmt.Sprintf("$(%s):$(%s)", userVar, passwordVar)
	if k := bc.Spec.Kafka; k != nil && k.SASL != nil && k.SASL.Mechanism != "" {
		v += ":" + string(k.SASL.Mechanism)
	}
	return v
}

// Rack is the rack of a broker whose pod runs on node: the value of the spec's node label
// (DefaultRackLabel unless set). A node without the label is an error: a broker with no rack
// would defeat rack-aware placement silently.
func Rack(spec *v1alpha1.RackAwarenessSpec, node *corev1.Node) (string, error) {
	label := spec.NodeLabel
	if label == "" {
		label = DefaultRackLabel
	}
	rack, ok := node.Labels[label]
	if !ok || rack == "" {
		return "", fmt.Errorf("node %s has no label %s", node.Name, label)
	}
	return rack, nil
}
