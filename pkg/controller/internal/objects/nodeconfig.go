package objects

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// The node configuration each broker starts with (/etc/redpanda/redpanda.yaml) and the cluster
// properties a new cluster is created with (/etc/redpanda/.bootstrap.yaml). docs/broker-pod.md
// explains each setting and where Redpanda defines it.

// Where the files go inside the broker pod.
const (
	configDir       = "/etc/redpanda"
	nodeConfigFile  = configDir + "/redpanda.yaml"
	bootstrapFile   = configDir + "/.bootstrap.yaml"
	adminTLSDir     = "/etc/tls/admin"
	podNameVar      = "POD_NAME"
	adminUserVar    = "ADMIN_API_USERNAME"
	adminPassVar    = "ADMIN_API_PASSWORD"
	nodeConfigVar   = "REDPANDA_NODE_CONFIG"
	bootstrapVar    = "REDPANDA_BOOTSTRAP_CONFIG"
	bootstrapUser   = "RP_BOOTSTRAP_USER"
	factsSourceVar  = "BROKER_FACTS_SOURCE"
	listenerName    = "internal"
	listenAllIPv4   = "0.0.0.0"
	stableHostValue = "$(" + podNameVar + ")" // expanded by the kubelet from the pod's name
)

// hostPort is Redpanda's unresolved_address as YAML (config/node_config.cc, rpc_server and
// seed_servers.host).
type hostPort struct {
	Address string `json:"address"`
	Port    int32  `json:"port"`
}

// namedHostPort is a named listener (config/broker_endpoint: kafka_api, admin).
type namedHostPort struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Port    int32  `json:"port"`
}

type seedServer struct {
	Host hostPort `json:"host"`
}

// listenerTLS is config/tls_config.h's endpoint_tls_config as YAML (admin_api_tls).
type listenerTLS struct {
	Name              string `json:"name"`
	Enabled           bool   `json:"enabled"`
	CertFile          string `json:"cert_file"`
	KeyFile           string `json:"key_file"`
	RequireClientAuth bool   `json:"require_client_auth"`
}

type redpandaNodeConfig struct {
	DataDirectory          string                     `json:"data_directory"`
	EmptySeedStartsCluster bool                       `json:"empty_seed_starts_cluster"`
	SeedServers            []seedServer               `json:"seed_servers"`
	RPCServer              hostPort                   `json:"rpc_server"`
	AdvertisedRPCAPI       hostPort                   `json:"advertised_rpc_api"`
	KafkaAPI               []brokerconfig.Listener    `json:"kafka_api"`
	AdvertisedKafkaAPI     []brokerconfig.Listener    `json:"advertised_kafka_api"`
	KafkaAPITLS            []brokerconfig.ListenerTLS `json:"kafka_api_tls,omitempty"`
	Admin                  []namedHostPort            `json:"admin"`
	AdminAPITLS            []listenerTLS              `json:"admin_api_tls,omitempty"`
}

// rpkAdminAPI is the rpk section that tells rpk inside the pod where the admin API is; Redpanda
// itself has no advertised admin address.
type rpkAdminAPI struct {
	Addresses []string `json:"addresses"`
}

type rpkConfig struct {
	AdminAPI rpkAdminAPI `json:"admin_api"`
}

type nodeConfigFileContent struct {
	Redpanda redpandaNodeConfig `json:"redpanda"`
	RPK      rpkConfig          `json:"rpk"`
	// The HTTP APIs' sections, only when the spec turns them on (httpapi_types.go).
	SchemaRegistry       *brokerconfig.SchemaRegistryConfig `json:"schema_registry,omitempty"`
	SchemaRegistryClient *brokerconfig.KafkaClient          `json:"schema_registry_client,omitempty"`
	Pandaproxy           *brokerconfig.PandaproxyConfig     `json:"pandaproxy,omitempty"`
	PandaproxyClient     *brokerconfig.KafkaClient          `json:"pandaproxy_client,omitempty"`
}

// podHostName is the stable DNS name of the pod the config is expanded in, a pod of the
// StatefulSet (and headless Service) named set.
func podHostName(bc *v1alpha1.BrokerCluster, set, domain string) string {
	return stableHostValue + "." + admin.ServiceHostName(set, bc.Namespace, domain)
}

// seedServers lists the stable host names of pods 0 to seeds-1: the brokers that found the
// cluster. Redpanda compares each seed with its own advertised RPC address to know whether it
// is a founder (cluster/cluster_discovery.cc), so both are written the same way.
func seedServers(bc *v1alpha1.BrokerCluster, seeds int32, domain string) []seedServer {
	out := make([]seedServer, 0, seeds)
	for i := range seeds {
		out = append(out, seedServer{Host: hostPort{Address: admin.StableHostName(bc.Name, bc.Namespace, int(i), domain), Port: internalRPCPort}})
	}
	return out
}

// nodeConfigYAML renders redpanda.yaml for a pod of the StatefulSet named set. It names the pod
// through $(POD_NAME), which the kubelet expands when it sets the environment variable that
// carries the file into the pod, in the cluster DNS domain. With seeds 0 the seed servers are left empty here: the config
// container sets them from the seeds ConfigMap (seeds.go).
func nodeConfigYAML(bc *v1alpha1.BrokerCluster, set string, seeds int32, domain string) string {
	host := podHostName(bc, set, domain)
	port := AdminPort(bc)
	// The external listener's advertised address and the rack differ per broker and are known
	// only once the pod is placed: the config container writes them (placement.go).
	var external *brokerconfig.Address
	if l := ExternalListener(bc); l != nil {
		external = &brokerconfig.Address{Host: externalAddressPending, Port: brokerconfig.ListenerPort(l)}
	}
	kafka := brokerconfig.KafkaNodeConfig(bc, host, external, "")
	var proxyExternal *brokerconfig.Address
	if a, ok := brokerconfig.HTTPProxy(bc); ok && a.External != nil {
		proxyExternal = &brokerconfig.Address{Host: externalAddressPending, Port: a.ExternalPort}
	}
	http := brokerconfig.HTTPNodeConfig(bc, host, proxyExternal)
	cfg := nodeConfigFileContent{
		Redpanda: redpandaNodeConfig{
			DataDirectory:          dataPath,
			EmptySeedStartsCluster: false,
			SeedServers:            seedServers(bc, seeds, domain),
			RPCServer:              hostPort{Address: listenAllIPv4, Port: internalRPCPort},
			AdvertisedRPCAPI:       hostPort{Address: host, Port: internalRPCPort},
			KafkaAPI:               kafka.KafkaAPI,
			AdvertisedKafkaAPI:     kafka.AdvertisedKafkaAPI,
			KafkaAPITLS:            kafka.KafkaAPITLS,
			Admin:                  []namedHostPort{{Name: listenerName, Address: listenAllIPv4, Port: port}},
		},
		RPK:                  rpkConfig{AdminAPI: rpkAdminAPI{Addresses: []string{fmt.Sprintf("%s:%d", host, port)}}},
		SchemaRegistry:       http.SchemaRegistry,
		SchemaRegistryClient: http.SchemaRegistryClient,
		Pandaproxy:           http.Pandaproxy,
		PandaproxyClient:     http.PandaproxyClient,
	}
	if serverTLS(bc) {
		cfg.Redpanda.AdminAPITLS = []listenerTLS{{
			Name: listenerName, Enabled: true,
			CertFile: adminTLSDir + "/tls.crt", KeyFile: adminTLSDir + "/tls.key",
			// Redpanda's default; the spec has no field that asks the brokers for mTLS.
			RequireClientAuth: false,
		}}
	}
	return mustYAML(cfg)
}

// bootstrapConfigYAML renders .bootstrap.yaml, the cluster properties Redpanda applies once,
// when the cluster is created (cluster/config_manager.cc): the superuser with
// spec.adminAPI.auth, SASL and rack awareness (brokerconfig.ClusterProperties). Empty when there
// is nothing to set.
func bootstrapConfigYAML(bc *v1alpha1.BrokerCluster) string {
	props := brokerconfig.ClusterProperties(bc)
	if bc.Spec.AdminAPI.Auth != nil {
		props["admin_api_require_auth"] = true
		props["superusers"] = []string{"$(" + adminUserVar + ")"}
	}
	if len(props) == 0 {
		return ""
	}
	return mustYAML(props)
}

func mustYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("controller: marshal broker config: %v", err)) // plain structs always marshal
	}
	return strings.TrimSpace(string(data)) + "\n"
}

// serverTLS reports whether the brokers serve their admin API with a certificate from the spec.
func serverTLS(bc *v1alpha1.BrokerCluster) bool {
	return bc.Spec.AdminAPI.TLS != nil && bc.Spec.AdminAPI.TLS.ServerSecretName != ""
}
