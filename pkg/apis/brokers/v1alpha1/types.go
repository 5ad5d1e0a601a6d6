package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerCluster is a cluster of message brokers run as a StatefulSet. The operator scales it one
// broker at a time and decommissions a broker through the brokers' admin API before its pod goes.
//
// +kubebuilder:resource:scope=Namespaced,shortName=bc,categories=all
// +kubebuilder:validation:XValidation:rule="!has(self.spec.pools) || self.spec.pools.all(p, size(self.metadata.name) + 1 + size(p.name) <= 52)",message="a pool's StatefulSet, <cluster>-<pool>, needs a name of at most 52 characters, as every StatefulSet does for its pods' labels: shorten the pool's name"
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentReplicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.currentReplicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Decommissioning",type=integer,JSONPath=`.status.decommissioningBroker`
// +kubebuilder:printcolumn:name="Restarting",type=string,JSONPath=`.status.restart.pod`
// +kubebuilder:printcolumn:name="Step",type=string,JSONPath=`.status.restart.step`
// +kubebuilder:printcolumn:name="Next-Window",type=string,JSONPath=`.status.nextMaintenanceWindow`
// +kubebuilder:printcolumn:name="Next-Disruption",type=string,JSONPath=`.status.disruptionPreview.disruptions[0].pod`,priority=1
// +kubebuilder:printcolumn:name="Pools",type=string,JSONPath=`.status.poolsSummary`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BrokerCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BrokerClusterSpec `json:"spec"`
	// +optional
	Status BrokerClusterStatus `json:"status,omitempty"`
}

// BrokerClusterSpec is the desired state of a broker cluster.
//
// The rules below refuse, with a message, combinations the operator could not honour, rather
// than accept a setting it would ignore.
//
// +kubebuilder:validation:XValidation:rule="!has(self.kafka) || !has(self.kafka.external) || !has(self.kafka.external.port) || !(self.kafka.external.port in [9092, 33145]) && (!has(self.adminAPI.port) || self.kafka.external.port != self.adminAPI.port)",message="spec.kafka.external.port must differ from the internal Kafka port 9092, the RPC port 33145 and spec.adminAPI.port"
// +kubebuilder:validation:XValidation:rule="!has(self.kafka) || !has(self.kafka.sasl) || has(self.adminAPI.auth)",message="spec.kafka.sasl needs spec.adminAPI.auth: its user is the superuser"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.adminAPI) || !has(oldSelf.adminAPI.auth) || (has(self.adminAPI) && has(self.adminAPI.auth))",message="spec.adminAPI.auth cannot be removed: the brokers keep requiring credentials (admin_api_require_auth), and the operator would be locked out (docs/security.md)"
// +kubebuilder:validation:XValidation:rule="!has(self.kafka) || !has(self.kafka.external) || self.kafka.external.type != 'Addresses' || size(self.kafka.external.addresses) >= self.replicas",message="spec.kafka.external.addresses needs one address per broker: at least spec.replicas"
// +kubebuilder:validation:XValidation:rule="!has(self.kafka) || !has(self.kafka.external) || self.kafka.external.type != 'NodePort' || !has(self.kafka.external.nodePort) || self.kafka.external.nodePort.basePort + self.replicas - 1 <= 32767",message="spec.kafka.external.nodePort.basePort + spec.replicas - 1 must not exceed 32767, the top of the default node port range"
// +kubebuilder:validation:XValidation:rule="!has(self.nodeLossRecovery) || (has(self.decommissionGhostBrokers) && self.decommissionGhostBrokers)",message="spec.nodeLossRecovery needs spec.decommissionGhostBrokers: a recovered broker's old node ID is decommissioned as a ghost broker once its replacement has joined"
// +kubebuilder:validation:XValidation:rule="self.replicas > 0 || (has(self.pools) && self.pools.exists(p, p.replicas > 0))",message="a cluster needs at least one broker: spec.replicas or the replicas of one of spec.pools must be above 0"
// +kubebuilder:validation:XValidation:rule="!has(self.pools) || size(self.pools) == 0 || !has(self.kafka) || !has(self.kafka.external)",message="spec.kafka.external cannot be used with spec.pools yet: each broker's external address and node port are numbered by its pod's ordinal, which every pool repeats"
// +kubebuilder:validation:XValidation:rule="(!has(self.schemaRegistry) && !has(self.httpProxy)) || [9092, 33145, has(self.adminAPI) && has(self.adminAPI.port) ? self.adminAPI.port : 9644, has(self.kafka) && has(self.kafka.external) ? (has(self.kafka.external.port) ? self.kafka.external.port : 9094) : -1, has(self.schemaRegistry) ? (has(self.schemaRegistry.port) ? self.schemaRegistry.port : 8081) : -2, has(self.schemaRegistry) && has(self.schemaRegistry.external) ? (has(self.schemaRegistry.external.port) ? self.schemaRegistry.external.port : 8084) : -3, has(self.httpProxy) ? (has(self.httpProxy.port) ? self.httpProxy.port : 8082) : -4, has(self.httpProxy) && has(self.httpProxy.external) ? (has(self.httpProxy.external.port) ? self.httpProxy.external.port : 8083) : -5].all(p, [9092, 33145, has(self.adminAPI) && has(self.adminAPI.port) ? self.adminAPI.port : 9644, has(self.kafka) && has(self.kafka.external) ? (has(self.kafka.external.port) ? self.kafka.external.port : 9094) : -1, has(self.schemaRegistry) ? (has(self.schemaRegistry.port) ? self.schemaRegistry.port : 8081) : -2, has(self.schemaRegistry) && has(self.schemaRegistry.external) ? (has(self.schemaRegistry.external.port) ? self.schemaRegistry.external.port : 8084) : -3, has(self.httpProxy) ? (has(self.httpProxy.port) ? self.httpProxy.port : 8082) : -4, has(self.httpProxy) && has(self.httpProxy.external) ? (has(self.httpProxy.external.port) ? self.httpProxy.external.port : 8083) : -5].exists_one(q, q == p))",message="the ports of spec.schemaRegistry and spec.httpProxy, internal and external, must differ from each other and from 9092 (Kafka), spec.kafka.external.port, 33145 (RPC) and spec.adminAPI.port"
// +kubebuilder:validation:XValidation:rule="(!has(self.schemaRegistry) || !has(self.schemaRegistry.authenticationMethod) || self.schemaRegistry.authenticationMethod != 'http_basic' || (has(self.kafka) && has(self.kafka.sasl))) && (!has(self.httpProxy) || !has(self.httpProxy.authenticationMethod) || self.httpProxy.authenticationMethod != 'http_basic' || (has(self.kafka) && has(self.kafka.sasl)))",message="authenticationMethod http_basic of spec.schemaRegistry or spec.httpProxy needs spec.kafka.sasl: its users are the cluster's SCRAM users"
// +kubebuilder:validation:XValidation:rule="(!has(self.schemaRegistry) || !has(self.schemaRegistry.external) || (has(self.kafka) && has(self.kafka.external))) && (!has(self.httpProxy) || !has(self.httpProxy.external) || (has(self.kafka) && has(self.kafka.external)))",message="spec.schemaRegistry.external and spec.httpProxy.external need spec.kafka.external: they are exposed on its Services and hosts"
// +kubebuilder:validation:XValidation:rule="(!has(self.schemaRegistry) || !has(self.schemaRegistry.external) || !has(self.kafka) || !has(self.kafka.external) || has(self.schemaRegistry.external.nodePort) == (self.kafka.external.type == 'NodePort')) && (!has(self.httpProxy) || !has(self.httpProxy.external) || !has(self.kafka) || !has(self.kafka.external) || has(self.httpProxy.external.nodePort) == (self.kafka.external.type == 'NodePort'))",message="spec.schemaRegistry.external.nodePort and spec.httpProxy.external.nodePort are set exactly when spec.kafka.external.type is NodePort"
// +kubebuilder:validation:XValidation:rule="(!has(self.schemaRegistry) || !has(self.schemaRegistry.external) || !has(self.kafka) || !has(self.kafka.external) || (has(self.schemaRegistry.external.addresses) == (self.kafka.external.type == 'Addresses') && (!has(self.schemaRegistry.external.addresses) || size(self.schemaRegistry.external.addresses) >= self.replicas))) && (!has(self.httpProxy) || !has(self.httpProxy.external) || !has(self.kafka) || !has(self.kafka.external) || (has(self.httpProxy.external.addresses) == (self.kafka.external.type == 'Addresses') && (!has(self.httpProxy.external.addresses) || size(self.httpProxy.external.addresses) >= self.replicas)))",message="spec.schemaRegistry.external.addresses and spec.httpProxy.external.addresses are set exactly when spec.kafka.external.type is Addresses, one per broker: at least spec.replicas"
// +kubebuilder:validation:XValidation:rule="(!(has(self.schemaRegistry) && has(self.schemaRegistry.external) && has(self.schemaRegistry.external.nodePort)) || (self.schemaRegistry.external.nodePort.basePort + self.replicas - 1 <= 32767 && (!(has(self.kafka) && has(self.kafka.external) && has(self.kafka.external.nodePort)) || (self.schemaRegistry.external.nodePort.basePort + self.replicas <= self.kafka.external.nodePort.basePort || self.kafka.external.nodePort.basePort + self.replicas <= self.schemaRegistry.external.nodePort.basePort)))) && (!(has(self.httpProxy) && has(self.httpProxy.external) && has(self.httpProxy.external.nodePort)) || (self.httpProxy.external.nodePort.basePort + self.replicas - 1 <= 32767 && (!(has(self.kafka) && has(self.kafka.external) && has(self.kafka.external.nodePort)) || (self.httpProxy.external.nodePort.basePort + self.replicas <= self.kafka.external.nodePort.basePort || self.kafka.external.nodePort.basePort + self.replicas <= self.httpProxy.external.nodePort.basePort)))) && (!(has(self.schemaRegistry) && has(self.schemaRegistry.external) && has(self.schemaRegistry.external.nodePort) && has(self.httpProxy) && has(self.httpProxy.external) && has(self.httpProxy.external.nodePort)) || (self.schemaRegistry.external.nodePort.basePort + self.replicas <= self.httpProxy.external.nodePort.basePort || self.httpProxy.external.nodePort.basePort + self.replicas <= self.schemaRegistry.external.nodePort.basePort))",message="the node ports of spec.schemaRegistry.external and spec.httpProxy.external, basePort to basePort + spec.replicas - 1, must not exceed 32767 nor overlap each other's or spec.kafka.external.nodePort's"
type BrokerClusterSpec struct {
	// Replicas is the number of brokers of the default pool: the brokers made from this
	// spec's own storage, resources and placement fields. Lowering it decommissions brokers
	// one at a time, highest pod ordinal first. It may be 0 only while a pool of spec.pools
	// has brokers.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=3
	// +optional
	Replicas int32 `json:"replicas"`

	// Image is the broker container image.
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`

	// Resources of the broker container.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// Storage is the persistent volume each broker gets.
	Storage StorageSpec `json:"storage"`

	// AdminAPI says how the operator reaches the brokers' admin API.
	// +kubebuilder:default={}
	// +optional
	AdminAPI AdminAPISpec `json:"adminAPI,omitempty"`

	// PodAnnotations are added to every broker pod.
	// +optional
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`

	// NodeSelector constrains broker pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations of the broker pods.
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// Affinity of the broker pods. By default the pods carry a required pod anti-affinity on
	// kubernetes.io/hostname among this cluster's broker pods: at most one broker per node, so
	// that one node failure takes at most one broker. Each part set here replaces that part of
	// the default: podAntiAffinity replaces the default anti-affinity (an empty podAntiAffinity
	// removes it; a preferred term softens it), while nodeAffinity and podAffinity are added to
	// it. A change restarts the brokers one at a time, as any pod template change does.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// TopologySpreadConstraints of the broker pods. Unset, the brokers spread over zones
	// (topology.kubernetes.io/zone, or spec.rackAwareness.nodeLabel with rack awareness) with
	// maxSkew 1 and whenUnsatisfiable ScheduleAnyway. A list set here replaces that default; an
	// empty list removes it. A change restarts the brokers one at a time.
	// +optional
	// +listType=atomic
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints"`

	// PriorityClassName of the broker pods. Unset: the cluster's default priority, if any.
	// A change restarts the brokers one at a time.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// TerminationGracePeriodSeconds is how long a broker has to stop once its pod is deleted
	// (on a restart, a move or a scale-down) before it is killed. Unset: Kubernetes' default,
	// 30 s. Redpanda's Helm chart sets 90, for a loaded broker's shutdown. A change restarts
	// the brokers one at a time.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`

	// ImagePullSecrets name Secrets of this namespace with credentials for the registry of
	// spec.image, put into every broker pod, of every pool unless a pool names its own. A
	// change restarts the brokers one at a time.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// ServiceAccount the broker pods run as: an existing one by name, or one the operator
	// makes and owns (create: true), with annotations such as eks.amazonaws.com/role-arn for
	// cloud credentials. Unset: the namespace's default service account. A pool may name
	// another (spec.pools[].serviceAccountName). A change restarts the brokers one at a time.
	// +optional
	ServiceAccount *BrokerServiceAccount `json:"serviceAccount,omitempty"`

	// UnsafeSkipHealthGate lets restarts and decommissions go ahead while the brokers'
	// health_overview reports the cluster unhealthy (leaderless or under-replicated partitions),
	// or a restarting broker's pre-restart probe names partitions at risk. For emergencies only:
	// with it set, a restart or a decommission can make partitions unavailable. It never waives
	// "every other broker up": a restart still waits while another broker is down, and
	// everything still happens one broker at a time.
	// +optional
	UnsafeSkipHealthGate bool `json:"unsafeSkipHealthGate,omitempty"`

	// Rollout tunes how a rolling restart judges that a restarted broker has recovered.
	// +optional
	Rollout *RolloutSpec `json:"rollout,omitempty"`

	// MaintenanceWindows are the weekly times in which the operator may start a step that takes
	// a broker away: a restart (a rollout, a property needing a restart, a volume resize) or a
	// decommission. Empty: any time. A step under way when its window closes finishes its broker,
	// and the next broker waits for the next window. A restart asked for on the pod by a drain or
	// by hand (broker-operator.dev/restart-requested) is not held: whoever asked chose the time.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	MaintenanceWindows []MaintenanceWindow `json:"maintenanceWindows,omitempty"`

	// DecommissionGhostBrokers makes the operator decommission ghost brokers: brokers the admin
	// API lists as active but not alive that no pod of this cluster runs. Off by default: a
	// ghost may be a broker whose pod is only briefly gone, and the operator only reports it.
	// +optional
	DecommissionGhostBrokers bool `json:"decommissionGhostBrokers,omitempty"`

	// NodeLossRecovery, when set, brings back a broker whose pod cannot be scheduled because
	// its data volume is pinned to a node that no longer exists (a local volume whose node was
	// deleted): once the node has been gone for the grace period and every other broker is up,
	// the volume's reclaim policy is set to Retain, and the claim and the pod are deleted, so
	// that the StatefulSet makes both anew. The broker comes back on an empty volume with a new
	// node ID: its local data is lost and is copied back from the other replicas. Its old ID is
	// decommissioned as a ghost broker, so it needs spec.decommissionGhostBrokers. Unset (the
	// default): such a broker is only reported (the NodeLost condition).
	// +optional
	NodeLossRecovery *NodeLossRecoverySpec `json:"nodeLossRecovery,omitempty"`

	// Kafka configures the brokers' Kafka API beyond the internal plaintext listener on port
	// 9092: TLS, SASL and an external listener.
	// +optional
	Kafka *KafkaSpec `json:"kafka,omitempty"`

	// SchemaRegistry, when set, turns on the brokers' Schema Registry: an internal listener on
	// each broker (port 8081), and optionally TLS, authentication and an external listener.
	// Unset: off, as before.
	// +optional
	SchemaRegistry *SchemaRegistrySpec `json:"schemaRegistry,omitempty"`

	// HTTPProxy, when set, turns on the brokers' HTTP Proxy (Pandaproxy): an internal listener
	// on each broker (port 8082), and optionally TLS, authentication and an external listener.
	// Unset: off, as before.
	// +optional
	HTTPProxy *HTTPProxySpec `json:"httpProxy,omitempty"`

	// ClusterConfig are Redpanda cluster properties (for example log_segment_size,
	// auto_create_topics_enabled), applied through the admin API. Each value is the property's
	// JSON value written as a string: "true", "134217728", "[\"SCRAM\"]", "\"text\"". A
	// value that is not valid JSON is sent as a JSON string, so text needs no inner quotes.
	// Properties the operator sets itself (superusers, admin_api_require_auth, enable_sasl,
	// sasl_mechanisms, enable_rack_awareness) cannot be set here, nor can cloud storage keys
	// (spec.tieredStorage.credentialsSecretRef).
	// +optional
	// +kubebuilder:validation:MaxProperties=256
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['superusers', 'admin_api_require_auth', 'enable_sasl', 'sasl_mechanisms', 'enable_rack_awareness']))",message="superusers, admin_api_require_auth, enable_sasl, sasl_mechanisms and enable_rack_awareness are set by the operator from spec.adminAPI.auth, spec.kafka.sasl and spec.rackAwareness"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['cloud_storage_access_key', 'cloud_storage_secret_key', 'cloud_storage_azure_shared_key']))",message="cloud storage keys never go in spec.clusterConfig, where anyone who reads the BrokerCluster sees them: put them in a Secret named by spec.tieredStorage.credentialsSecretRef, or give the broker pods a service account (spec.serviceAccount) and set cloud_storage_credentials_source"
	ClusterConfig map[string]string `json:"clusterConfig,omitempty"`

	// TieredStorage takes the cloud storage keys from a Secret; the other tiered storage
	// properties go in spec.clusterConfig.
	// +optional
	TieredStorage *TieredStorageSpec `json:"tieredStorage,omitempty"`

	// RackAwareness makes each broker's rack the zone of the node its pod runs on, and turns on
	// Redpanda's rack-aware replica placement.
	// +optional
	RackAwareness *RackAwarenessSpec `json:"rackAwareness,omitempty"`

	// Pools are groups of brokers besides the default pool (spec.replicas and the fields
	// beside it), each with its own StatefulSet, storage, resources and placement. Moving
	// brokers from one pool to another adds the new pool's brokers first and decommissions the
	// old pool's only once they have joined, one at a time (docs/pools.md).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=6
	Pools []BrokerPool `json:"pools,omitempty"`
}

// KafkaSpec configures the brokers' Kafka listeners.
type KafkaSpec struct {
	// TLS of the internal Kafka listener (port 9092). Unset: plaintext.
	// +optional
	TLS *ListenerTLS `json:"tls,omitempty"`

	// SASL, when set, makes every Kafka listener require SASL authentication (SCRAM). The user
	// of spec.adminAPI.auth is the superuser; other users and their ACLs are managed with
	// Redpanda's own tools (rpk security user, rpk security acl).
	// +optional
	SASL *KafkaSASL `json:"sasl,omitempty"`

	// External is a Kafka listener reachable from outside the Kubernetes cluster. Each broker
	// advertises an address that reaches that broker and no other.
	// +optional
	External *ExternalListener `json:"external,omitempty"`
}

// ListenerTLS is the TLS of one listener: Kafka, Schema Registry or HTTP Proxy. The certificate
// comes from a Secret, or from a cert-manager Issuer or ClusterIssuer; exactly one of the two.
//
// +kubebuilder:validation:XValidation:rule="has(self.secretName) != has(self.issuerRef)",message="set exactly one of secretName and issuerRef"
type ListenerTLS struct {
	// SecretName names a kubernetes.io/tls Secret (tls.crt, tls.key, and ca.crt when
	// requireClientAuth is set, or, for spec.kafka.tls, when spec.schemaRegistry or
	// spec.httpProxy is set: they dial Kafka trusting it) in the BrokerCluster's namespace. Its
	// certificate must name every address the listener advertises.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SecretName string `json:"secretName,omitempty"`

	// IssuerRef names a cert-manager Issuer or ClusterIssuer that signs the listener's
	// certificate. The operator makes a cert-manager Certificate <cluster>-<api>-<listener>-tls
	// (api: kafka, schema-registry or http-proxy) for the pods' and the advertised external
	// hosts' names, and the brokers mount the Secret
	// of the same name that cert-manager writes; the cluster waits until it exists
	// (CertificatesReady). Only for clusters where cert-manager is installed.
	// +optional
	IssuerRef *IssuerReference `json:"issuerRef,omitempty"`

	// RequireClientAuth makes the listener require a client certificate signed by the CA in the
	// certificate's ca.crt.
	// +optional
	RequireClientAuth bool `json:"requireClientAuth,omitempty"`
}

// IssuerReference names a cert-manager issuer.
type IssuerReference struct {
	// Name of the issuer.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Kind is Issuer (in the BrokerCluster's namespace) or ClusterIssuer.
	// +kubebuilder:validation:Enum=Issuer;ClusterIssuer
	// +kubebuilder:default=Issuer
	// +optional
	Kind string `json:"kind,omitempty"`
}

// KafkaSASL turns on SASL/SCRAM on the Kafka listeners.
type KafkaSASL struct {
	// Mechanism of the superuser's SCRAM credentials.
	// +kubebuilder:validation:Enum=SCRAM-SHA-256;SCRAM-SHA-512
	// +kubebuilder:default=SCRAM-SHA-256
	// +optional
	Mechanism SASLMechanism `json:"mechanism,omitempty"`
}

// SASLMechanism is a SCRAM mechanism.
type SASLMechanism string

// SCRAM mechanisms.
const (
	SCRAMSHA256 SASLMechanism = "SCRAM-SHA-256"
	SCRAMSHA512 SASLMechanism = "SCRAM-SHA-512"
)

// ExternalListenerType says how external clients reach each broker.
// +kubebuilder:validation:Enum=NodePort;LoadBalancer;Addresses
type ExternalListenerType string

// External listener types.
const (
	// ExternalNodePort: one NodePort Service per broker.
	ExternalNodePort ExternalListenerType = "NodePort"
	// ExternalLoadBalancer: one LoadBalancer Service per broker.
	ExternalLoadBalancer ExternalListenerType = "LoadBalancer"
	// ExternalAddresses: the user routes traffic to each broker and gives its address.
	ExternalAddresses ExternalListenerType = "Addresses"
)

// ExternalListener is a Kafka listener for clients outside the Kubernetes cluster.
//
// +kubebuilder:validation:XValidation:rule="has(self.nodePort) == (self.type == 'NodePort')",message="nodePort is set exactly when type is NodePort"
// +kubebuilder:validation:XValidation:rule="!has(self.loadBalancer) || self.type == 'LoadBalancer'",message="loadBalancer is set only when type is LoadBalancer"
// +kubebuilder:validation:XValidation:rule="has(self.addresses) == (self.type == 'Addresses')",message="addresses are set exactly when type is Addresses"
type ExternalListener struct {
	// Type says how each broker is reached: NodePort, LoadBalancer or Addresses.
	Type ExternalListenerType `json:"type"`

	// Port the brokers listen on for this listener, inside the pod.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=9094
	// +optional
	Port int32 `json:"port,omitempty"`

	// NodePort configures type NodePort.
	// +optional
	NodePort *NodePortListener `json:"nodePort,omitempty"`

	// LoadBalancer configures type LoadBalancer.
	// +optional
	LoadBalancer *LoadBalancerListener `json:"loadBalancer,omitempty"`

	// Addresses are the advertised host:port of each broker, in pod ordinal order, for type
	// Addresses. The user routes each to its broker's pod on port.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=261
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9.-]+:[0-9]{1,5}$`
	Addresses []string `json:"addresses,omitempty"`

	// TLS of this listener. Unset: plaintext.
	// +optional
	TLS *ListenerTLS `json:"tls,omitempty"`
}

// NodePortListener gives each broker its own node port: basePort + the pod's ordinal.
type NodePortListener struct {
	// BasePort is the node port of the broker in pod 0.
	// +kubebuilder:validation:Minimum=30000
	// +kubebuilder:validation:Maximum=32767
	BasePort int32 `json:"basePort"`

	// HostTemplate, when set, is the host each broker advertises, with {ordinal} replaced by
	// the pod's ordinal (for example broker-{ordinal}.kafka.example.com); traffic to it may
	// arrive on any node. Unset: each broker advertises the IP of the node its pod runs on,
	// and its Service routes only to that node's pod (externalTrafficPolicy Local).
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9.{}-]+$`
	// +optional
	HostTemplate string `json:"hostTemplate,omitempty"`
}

// LoadBalancerListener configures one LoadBalancer Service per broker.
type LoadBalancerListener struct {
	// Annotations added to each broker's Service (for example the cloud's load balancer type).
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// SourceRanges restricts the client addresses the load balancers accept.
	// +optional
	// +listType=atomic
	SourceRanges []string `json:"sourceRanges,omitempty"`

	// HostTemplate, when set, is the host each broker advertises, with {ordinal} replaced by
	// the pod's ordinal, for DNS names that point at the load balancers. Unset: the address of
	// the broker's load balancer, once its Service reports one.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9.{}-]+$`
	// +optional
	HostTemplate string `json:"hostTemplate,omitempty"`
}

// RackAwarenessSpec takes each broker's rack from a label of its node.
type RackAwarenessSpec struct {
	// NodeLabel is the node label whose value is the broker's rack.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:default="topology.kubernetes.io/zone"
	// +optional
	NodeLabel string `json:"nodeLabel,omitempty"`
}

// NodeLossRecoverySpec says when a broker whose volume's node is gone is brought back on a new
// volume.
type NodeLossRecoverySpec struct {
	// GracePeriod is how long the node must have been seen gone, without a break, before the
	// broker is brought back: a node object deleted and registered again (a kubelet that
	// re-registers) is given time to return with the volume. It is counted from the time
	// recorded in status.brokersOnLostNodes, which survives operator restarts.
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s')",message="gracePeriod must not be negative"
	// +optional
	GracePeriod *metav1.Duration `json:"gracePeriod,omitempty"`
}

// StorageSpec is the persistent volume claim template of each broker.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.size)).compareTo(quantity(string(oldSelf.size))) >= 0",message="storage.size cannot shrink"
// +kubebuilder:validation:XValidation:rule="has(self.storageClassName) == has(oldSelf.storageClassName) && (!has(self.storageClassName) || self.storageClassName == oldSelf.storageClassName)",message="storage.storageClassName is immutable"
type StorageSpec struct {
	// Size of each broker's volume, for example 10Gi. It can grow but never shrink. A growth
	// expands every broker's claim if its StorageClass allows volume expansion, and the claim
	// template of brokers added later; status.storage and the StorageResized condition show it.
	// +kubebuilder:validation:XValidation:rule="isQuantity(string(self)) && quantity(string(self)).isGreaterThan(quantity('0'))",message="storage.size must be a positive quantity"
	Size resource.Quantity `json:"size"`

	// StorageClassName of the volumes; empty means the cluster default. Immutable.
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`

	// WhenScaledDown says what happens to a broker's volume claim once its decommission has
	// finished and its pod is gone. Delete (the default) removes it, so that a later scale-up
	// starts a fresh broker: Redpanda refuses a decommissioned node's data. Retain keeps it.
	// +kubebuilder:validation:Enum=Delete;Retain
	// +kubebuilder:default=Delete
	// +optional
	WhenScaledDown VolumePolicy `json:"whenScaledDown,omitempty"`
}

// VolumePolicy says whether a scaled-down broker's volume claim is deleted or retained.
type VolumePolicy string

// Volume policies.
const (
	VolumeDelete VolumePolicy = "Delete"
	VolumeRetain VolumePolicy = "Retain"
)

// AdminAPISpec says how to reach the brokers' admin API.
type AdminAPISpec struct {
	// Port of the admin API on each broker.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=9644
	// +optional
	Port int32 `json:"port,omitempty"`

	// TLS, when set, makes the operator reach the admin API over HTTPS, trusting the CA in the
	// Secret it names. Unset: plain HTTP.
	// +optional
	TLS *AdminAPITLS `json:"tls,omitempty"`

	// Auth, when set, makes the operator send a superuser's credentials with every admin API
	// request (HTTP basic auth), and the brokers require them (admin_api_require_auth). Added
	// to a running cluster, the operator creates the user, makes it a superuser and only then
	// turns admin_api_require_auth on (condition SecurityReady). It cannot be removed.
	// +optional
	Auth *AdminAPIAuth `json:"auth,omitempty"`
}

// AdminAPITLS names the Secrets of a TLS admin API. Each is read from the BrokerCluster's
// namespace.
type AdminAPITLS struct {
	// SecretName names the Secret the operator uses as a client: ca.crt (required) is the CA
	// that signed the brokers' admin API certificates; tls.crt and tls.key (optional, together)
	// are a client certificate the operator presents.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName"`

	// ServerSecretName, when set, names a kubernetes.io/tls Secret (tls.crt, tls.key, and
	// optionally ca.crt) mounted into every broker pod: the brokers serve their admin API with
	// it. Its certificate must name each pod's stable DNS name
	// (<cluster>-<ordinal>.<cluster>.<namespace>.svc.cluster.local). Unset: the brokers' pod
	// spec does not configure admin TLS, and something else must.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ServerSecretName string `json:"serverSecretName,omitempty"`
}

// AdminAPIAuth names the Secret of the admin API's superuser.
type AdminAPIAuth struct {
	// SecretName names a Secret (kubernetes.io/basic-auth keys username and password) in the
	// BrokerCluster's namespace. The brokers create this user at cluster creation
	// (RP_BOOTSTRAP_USER) and make it a superuser; the operator authenticates as it. On a
	// running cluster the operator creates the user through the admin API, and a new password
	// in the Secret is set on the user by the operator with the password that last worked.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName"`
}

// BrokerClusterStatus is the observed state of a broker cluster.
type BrokerClusterStatus struct {
	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// CurrentReplicas is the number of brokers the cluster is meant to run right now. It steers the
	// StatefulSet and moves towards spec.replicas one broker at a time.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas"`

	// ReadyReplicas is the number of broker pods that are ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`

	// DecommissioningBroker is the broker (node) ID being decommissioned, if any.
	// +optional
	DecommissioningBroker *int32 `json:"decommissioningBroker,omitempty"`

	// UpdateRevision is the hash of the current pod template. A pod created from another
	// template is restarted by a rollout.
	// +optional
	UpdateRevision string `json:"updateRevision,omitempty"`

	// UpdatedReplicas is the number of broker pods, below currentReplicas, created from the
	// current pod template.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas"`

	// Restart is the broker a rollout is restarting, if any. Never more than one.
	// +optional
	Restart *BrokerRestart `json:"restart,omitempty"`

	// GhostBrokers are the node IDs the admin API lists as active but not alive that no pod of
	// this cluster runs, as of the last reconcile that asked the admin API.
	// +optional
	// +listType=set
	GhostBrokers []int32 `json:"ghostBrokers,omitempty"`

	// Selector is the label selector of the broker pods, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`

	// MembershipReadFrom names the broker whose GET /v1/brokers the last fresh check of an
	// irreversible step read its membership facts from ("every other broker up", "no other
	// broker draining"): the controller leader, or any broker, with why, when the leader could
	// not be asked.
	// +optional
	MembershipReadFrom string `json:"membershipReadFrom,omitempty"`

	// NextMaintenanceWindow is when the next of spec.maintenanceWindows opens, set while a step
	// waits for it.
	// +optional
	NextMaintenanceWindow *metav1.Time `json:"nextMaintenanceWindow,omitempty"`

	// ClusterConfig is the state of spec.clusterConfig on the brokers, as of the last reconcile
	// that asked the admin API.
	// +optional
	ClusterConfig *ClusterConfigStatus `json:"clusterConfig,omitempty"`

	// Storage is the growth of the brokers' volumes to spec.storage.size, per broker, once the
	// size has grown after the cluster was made; absent before any growth.
	// +optional
	Storage *StorageStatus `json:"storage,omitempty"`

	// DisruptionPreview names the broker pods the pending changes will restart or remove, in
	// the order the operator will take them, and why. It is written while the cluster is paused
	// too, so a change can be previewed before it starts.
	// +optional
	DisruptionPreview *DisruptionPreview `json:"disruptionPreview,omitempty"`

	// BrokersOnLostNodes are the brokers whose pod cannot be scheduled because its data volume
	// is pinned to a node that no longer exists, each with when the operator first saw it so.
	// +optional
	// +listType=map
	// +listMapKey=pod
	BrokersOnLostNodes []BrokerOnLostNode `json:"brokersOnLostNodes,omitempty"`

	// Pools are the brokers of each pool: the default pool as "default", then each named pool,
	// including one removed from spec.pools whose brokers are still leaving.
	// +optional
	// +listType=map
	// +listMapKey=name
	Pools []PoolStatus `json:"pools,omitempty"`

	// PoolsSummary is status.pools in a line, for kubectl get -o wide: each pool's brokers now
	// and desired, "default 1/0, blue 3/3". Empty for a cluster without pools.
	// +optional
	PoolsSummary string `json:"poolsSummary,omitempty"`

	// Conditions are Ready, Scaling, Degraded, Restarting, GhostBrokers, ConfigApplied, Paused,
	// StorageResized, NodeLost and CertificatesReady.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// BrokerOnLostNode is a broker whose pod cannot be scheduled because the volume its data
// volume claim is bound to is pinned (node affinity) to a node that no longer exists.
type BrokerOnLostNode struct {
	// Pod is the broker's pod.
	Pod string `json:"pod"`
	// Ordinal is the pod's ordinal.
	Ordinal int32 `json:"ordinal"`
	// Claim is the pod's data volume claim.
	Claim string `json:"claim"`
	// Volume is the PersistentVolume the claim is bound to.
	Volume string `json:"volume"`
	// Node is the node the volume is pinned to, which no longer exists.
	Node string `json:"node"`
	// NodeID is the broker ID recorded on the pod, when known.
	// +optional
	NodeID *int32 `json:"nodeID,omitempty"`
	// Since is when the operator first saw the node gone; spec.nodeLossRecovery.gracePeriod is
	// counted from it.
	Since metav1.Time `json:"since"`
}

// StorageStatus reports a growth of spec.storage.size on the brokers' volume claims.
type StorageStatus struct {
	// Size is the size the claims are grown to: spec.storage.size as last seen.
	Size resource.Quantity `json:"size"`

	// Claims are the data volume claims of the brokers below status.currentReplicas, as last
	// read.
	// +optional
	// +listType=map
	// +listMapKey=claim
	Claims []ClaimGrowth `json:"claims,omitempty"`
}

// ClaimGrowth is one broker's volume claim on its way to the new size.
type ClaimGrowth struct {
	// Claim is the PersistentVolumeClaim's name, datadir-<cluster>-<ordinal>.
	Claim string `json:"claim"`
	// Ordinal is the broker pod's ordinal.
	Ordinal int32 `json:"ordinal"`
	// Capacity is the claim's status.capacity: the size its volume has.
	// +optional
	Capacity *resource.Quantity `json:"capacity,omitempty"`
	// State is Pending (not asked to grow yet), Resizing (asked; the volume grows),
	// FileSystemResizePending (the volume grew; the file system grows when the pod restarts),
	// or Resized (its capacity has the new size).
	State ClaimGrowthState `json:"state"`
}

// ClaimGrowthState is where a claim is on its way to the new size.
// +kubebuilder:validation:Enum=Pending;Resizing;FileSystemResizePending;Resized
type ClaimGrowthState string

const (
	ClaimPending                 ClaimGrowthState = "Pending"
	ClaimResizing                ClaimGrowthState = "Resizing"
	ClaimFileSystemResizePending ClaimGrowthState = "FileSystemResizePending"
	ClaimResized                 ClaimGrowthState = "Resized"
)

// ClusterConfigStatus reports spec.clusterConfig as the brokers have it.
type ClusterConfigStatus struct {
	// ObservedGeneration is the generation of the BrokerCluster whose desired cluster properties
	// were last compared with the brokers' configuration.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// ConfigVersion is the cluster configuration version the last write returned
	// (config_version of PUT /v1/cluster_config).
	// +optional
	ConfigVersion int64 `json:"configVersion,omitempty"`

	// Applied are the properties every broker has at the desired value.
	// +optional
	// +listType=set
	Applied []string `json:"applied,omitempty"`

	// PendingRestart are the properties the operator changed that are not in effect on every
	// broker yet: a broker has not applied their config_version, or reports restart: true in
	// GET /v1/cluster_config/status. Redpanda reports a pending restart per broker, not per
	// property, so every property changed since the brokers were last all up to date is listed.
	// +optional
	// +listType=set
	PendingRestart []string `json:"pendingRestart,omitempty"`

	// Managed are the properties the operator has set and not reset since: those of
	// spec.clusterConfig and those it derives from the spec (enable_sasl and sasl_mechanisms
	// with spec.kafka.sasl, enable_rack_awareness with spec.rackAwareness). A property the spec
	// no longer asks for is reset to its default only if it is listed here, so a property set
	// with rpk is left alone.
	// +optional
	// +listType=set
	Managed []string `json:"managed,omitempty"`

	// BrokersPendingRestart are the node IDs that report a property waiting for a restart
	// (restart: true in GET /v1/cluster_config/status). The rollout restarts them.
	// +optional
	// +listType=set
	BrokersPendingRestart []int32 `json:"brokersPendingRestart,omitempty"`

	// Rejected are the properties Redpanda refused, with its reason.
	// +optional
	// +listType=map
	// +listMapKey=name
	Rejected []RejectedProperty `json:"rejected,omitempty"`

	// CredentialsVersion identifies the version of the spec.tieredStorage.credentialsSecretRef
	// Secret whose keys the brokers have: a hash of its name, UID, resourceVersion and the keys
	// read, never of a value. Redpanda never shows a secret key back, so a Secret whose version
	// differs is written again; that is how a rotation reaches the brokers.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	CredentialsVersion string `json:"credentialsVersion,omitempty"`
}

// RejectedProperty is a cluster property Redpanda refused.
type RejectedProperty struct {
	// Name of the property.
	Name string `json:"name"`
	// Reason is Redpanda's message, for example "Unknown property".
	Reason string `json:"reason"`
}

// MaintenanceWindow is one weekly window, in the shape of AKS planned maintenance's weekly
// schedule (day of week, start time, duration) with a CronJob's spec.timeZone.
// +kubebuilder:validation:XValidation:rule="duration(self.duration) >= duration('1m') && duration(self.duration) <= duration('168h')",message="duration must be between 1m and 168h"
type MaintenanceWindow struct {
	// Days the window opens on. Empty: every day.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=7
	Days []Weekday `json:"days,omitempty"`
	// Start is the time of day the window opens, HH:MM on a 24-hour clock in TimeZone.
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3]):[0-5][0-9]$`
	Start string `json:"start"`
	// Duration is how long the window stays open, from 1m to 168h: "4h", "90m".
	Duration metav1.Duration `json:"duration"`
	// TimeZone is the IANA name of the time zone Start is in, as a CronJob's spec.timeZone
	// ("Europe/Berlin"). Empty: UTC. A name the operator does not know holds every step that
	// waits for a window, with Degraded reason InvalidMaintenanceWindow.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	TimeZone string `json:"timeZone,omitempty"`
}

// Weekday is a day of the week, in English.
// +kubebuilder:validation:Enum=Monday;Tuesday;Wednesday;Thursday;Friday;Saturday;Sunday
type Weekday string

// RolloutSpec tunes the rolling restart.
type RolloutSpec struct {
	// RecoveredPercent is the load a restarted broker must have reclaimed, as Redpanda's
	// GET /v1/broker/post_restart_probe reports it (load_reclaimed_pc: the share of the in-sync
	// replicas it hosts that have caught up, Redpanda 25.1 and later), before its restart
	// finishes and the next broker restarts. 100 waits for full recovery, as Redpanda's operator
	// does by default (--post-restart-caught-up-percent). Brokers older than 25.1 have no probe:
	// the restart finishes once the broker is back.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=100
	// +optional
	RecoveredPercent int32 `json:"recoveredPercent,omitempty"`
	// RecoveryTimeout is how long a restarted broker may take to reach RecoveredPercent before
	// the cluster is Degraded (BrokerRecoveryStalled) naming the broker and its percentage. The
	// restart keeps waiting: the next broker never restarts before this one has recovered.
	// +kubebuilder:default="30m"
	// +optional
	RecoveryTimeout *metav1.Duration `json:"recoveryTimeout,omitempty"`
	// BlockRF1Offline holds a restart back while its broker's pre-restart probe (Redpanda 25.1
	// and later) names partitions of RF=1 topics it is the only replica of. Off by default: an
	// RF=1 topic has no redundancy to keep, so every restart of its broker takes it offline
	// whatever the operator does, and waiting would stop the rollout for good; the restart's
	// event names those partitions instead. Redpanda's operator treats them the same way.
	// +optional
	BlockRF1Offline bool `json:"blockRF1Offline,omitempty"`
}

// BrokerRestart is the progress of one broker's restart in a rollout.
type BrokerRestart struct {
	// Pod is the name of the broker's pod.
	Pod string `json:"pod"`
	// Ordinal is the pod's ordinal.
	Ordinal int32 `json:"ordinal"`
	// NodeID is the broker's node ID, read from the admin API when the restart began.
	NodeID int32 `json:"nodeID"`
	// Step is where the restart is.
	Step RestartStep `json:"step"`
	// PodUID is the UID of the pod that is deleted to restart the broker. The deletion carries
	// it as a precondition, so the pod that replaces it is never deleted by mistake.
	// +optional
	PodUID string `json:"podUID,omitempty"`
}

// RestartStep is a step of one broker's restart.
// +kubebuilder:validation:Enum=Draining;Restarting
type RestartStep string

// Restart steps, in order.
const (
	// RestartDraining: the broker was put into maintenance mode; its partition leadership moves
	// to other brokers.
	RestartDraining RestartStep = "Draining"
	// RestartRestarting: its pod was deleted; the new pod must be Ready and its broker back in
	// the cluster before maintenance mode is taken off.
	RestartRestarting RestartStep = "Restarting"
)

// Condition types of a BrokerCluster.
const (
	// ConditionReady is true when every desired broker runs and is ready.
	ConditionReady = "Ready"
	// ConditionScaling is true while brokers are being added or decommissioned.
	ConditionScaling = "Scaling"
	// ConditionDegraded is true when the operator cannot make progress, for example because the
	// admin API does not answer or the health gate holds a step back.
	ConditionDegraded = "Degraded"
	// ConditionRestarting is true while a rollout restarts brokers onto a new pod template.
	ConditionRestarting = "Restarting"
	// ConditionGhostBrokers is true when the admin API lists brokers as active but not alive
	// that no pod of this cluster runs.
	ConditionGhostBrokers = "GhostBrokers"
	// ConditionConfigApplied is true when every broker has spec.clusterConfig in effect: written,
	// applied and with no restart pending.
	ConditionConfigApplied = "ConfigApplied"
	// ConditionPaused is true while the annotation broker-operator.dev/paused is "true": the
	// operator makes no change to the cluster.
	ConditionPaused = "Paused"
	// ConditionStorageResized is true when every broker's volume claim has the capacity
	// spec.storage.size asks for, and the StatefulSet's claim template carries it; it appears
	// once the size grows.
	ConditionStorageResized = "StorageResized"
	// ConditionNodeLost is true while a broker's pod cannot be scheduled because its data
	// volume is pinned to a node that no longer exists (status.brokersOnLostNodes).
	ConditionNodeLost = "NodeLost"
	// ConditionCertificatesReady is true when the Secret of every cert-manager Certificate the
	// operator made for a listener with an issuerRef holds a certificate; it appears with the
	// first such listener. While it is false the operator makes no other change to the cluster.
	ConditionCertificatesReady = "CertificatesReady"
	// ConditionSecurityReady is true when the superuser of spec.adminAPI.auth exists with the
	// Secret's password, is in superusers, and the brokers enforce admin API authentication
	// (and Kafka SASL with spec.kafka.sasl); its reason names the stage reached while the
	// operator turns security on for a running cluster or rotates the password. It appears
	// with spec.adminAPI.auth.
	ConditionSecurityReady = "SecurityReady"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerClusterList is a list of BrokerClusters.
type BrokerClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BrokerCluster `json:"items"`
}
