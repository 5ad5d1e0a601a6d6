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
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentReplicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.currentReplicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Decommissioning",type=integer,JSONPath=`.status.decommissioningBroker`
// +kubebuilder:printcolumn:name="Restarting",type=string,JSONPath=`.status.restart.pod`
// +kubebuilder:printcolumn:name="Step",type=string,JSONPath=`.status.restart.step`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BrokerCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BrokerClusterSpec `json:"spec"`
	// +optional
	Status BrokerClusterStatus `json:"status,omitempty"`
}

// BrokerClusterSpec is the desired state of a broker cluster.
type BrokerClusterSpec struct {
	// Replicas is the number of brokers. Lowering it decommissions brokers one at a time, highest
	// pod ordinal first.
	// +kubebuilder:validation:Minimum=1
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

	// UnsafeSkipHealthGate lets restarts and decommissions go ahead while the brokers'
	// health_overview reports the cluster unhealthy (a broker down, leaderless or
	// under-replicated partitions). For emergencies only: with it set, a restart or a
	// decommission can make partitions unavailable. Everything else still happens one broker at
	// a time.
	// +optional
	UnsafeSkipHealthGate bool `json:"unsafeSkipHealthGate,omitempty"`

	// DecommissionGhostBrokers makes the operator decommission ghost brokers: brokers the admin
	// API lists as active but not alive that no pod of this cluster runs. Off by default: a
	// ghost may be a broker whose pod is only briefly gone, and the operator only reports it.
	// +optional
	DecommissionGhostBrokers bool `json:"decommissionGhostBrokers,omitempty"`
}

// StorageSpec is the persistent volume claim template of each broker.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.size)).compareTo(quantity(string(oldSelf.size))) >= 0",message="storage.size cannot shrink"
// +kubebuilder:validation:XValidation:rule="has(self.storageClassName) == has(oldSelf.storageClassName) && (!has(self.storageClassName) || self.storageClassName == oldSelf.storageClassName)",message="storage.storageClassName is immutable"
type StorageSpec struct {
	// Size of each broker's volume, for example 10Gi. It can grow but never shrink.
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
	// request (HTTP basic auth), and the brokers require them (admin_api_require_auth).
	// +optional
	Auth *AdminAPIAuth `json:"auth,omitempty"`
}

// AdminAPITLS names the Secrets of a TLS admin API. Each is read from the BrokerCluster's
// namespace; the operator reads no other Secret.
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
	// (RP_BOOTSTRAP_USER) and make it a superuser; the operator authenticates as it.
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

	// Conditions are Ready, Scaling, Degraded, Restarting and GhostBrokers.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
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
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerClusterList is a list of BrokerClusters.
type BrokerClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BrokerCluster `json:"items"`
}
