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
// +kubebuilder:printcolumn:name="Decommissioning",type=integer,JSONPath=`.status.decommissioningBroker`
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
}

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

	// Selector is the label selector of the broker pods, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`

	// Conditions are Ready, Scaling and Degraded.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Condition types of a BrokerCluster.
const (
	// ConditionReady is true when every desired broker runs and is ready.
	ConditionReady = "Ready"
	// ConditionScaling is true while brokers are being added or decommissioned.
	ConditionScaling = "Scaling"
	// ConditionDegraded is true when the operator cannot make progress, for example because the
	// admin API does not answer.
	ConditionDegraded = "Degraded"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerClusterList is a list of BrokerClusters.
type BrokerClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BrokerCluster `json:"items"`
}
