package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerTopic is a Kafka topic of a BrokerCluster in the same namespace. The operator creates
// it, grows its partitions and sets the config keys the spec names; it leaves a topic it did
// not create alone until the resource is annotated broker-operator.dev/adopt=true.
//
// The root rules see metadata.name, which is the topic's name when spec.topicName is unset.
//
// +kubebuilder:resource:scope=Namespaced,shortName=bt,categories=all
// +kubebuilder:validation:XValidation:rule="has(self.spec.topicName) || size(self.metadata.name) <= 249",message="metadata.name is the topic's name when spec.topicName is unset, and a Kafka topic name has at most 249 characters: set spec.topicName"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.clusterRef.name`
// +kubebuilder:printcolumn:name="Topic",type=string,JSONPath=`.status.topicName`
// +kubebuilder:printcolumn:name="Partitions",type=integer,JSONPath=`.status.partitions`
// +kubebuilder:printcolumn:name="Origin",type=string,JSONPath=`.status.origin`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BrokerTopic struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BrokerTopicSpec `json:"spec"`
	// +optional
	Status BrokerTopicStatus `json:"status,omitempty"`
}

// BrokerTopicSpec is the desired state of one Kafka topic.
//
// The transition rules refuse changes Kafka cannot make to a topic in place.
//
// +kubebuilder:validation:XValidation:rule="has(self.topicName) == has(oldSelf.topicName)",message="spec.topicName is immutable: it can be neither set nor unset after creation"
// +kubebuilder:validation:XValidation:rule="has(self.replicationFactor) == has(oldSelf.replicationFactor)",message="spec.replicationFactor is immutable: it can be neither set nor unset after creation"
type BrokerTopicSpec struct {
	// ClusterRef names the BrokerCluster, in this namespace, that holds the topic. Immutable.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.clusterRef is immutable"
	ClusterRef ClusterReference `json:"clusterRef"`

	// TopicName is the topic's name in Kafka. Unset: metadata.name. Kafka's rule applies: 1 to
	// 249 characters of a-z, A-Z, 0-9, '.', '_' and '-', and neither "." nor "..". Immutable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=249
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-zA-Z0-9._-]+$')",message="spec.topicName may hold only the characters a-z, A-Z, 0-9, '.', '_' and '-', as Kafka requires"
	// +kubebuilder:validation:XValidation:rule="self != '.' && self != '..'",message="spec.topicName cannot be '.' or '..'"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.topicName is immutable"
	// +optional
	TopicName string `json:"topicName,omitempty"`

	// Partitions is the topic's partition count. It may only grow: Kafka cannot take partitions
	// away. A topic with more partitions than this is reported, not shrunk.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="spec.partitions may only grow: Kafka cannot take partitions away"
	Partitions int32 `json:"partitions"`

	// ReplicationFactor is the number of replicas of each partition. Unset: the cluster's
	// default_topic_replication. Immutable.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.replicationFactor is immutable"
	// +optional
	ReplicationFactor *int32 `json:"replicationFactor,omitempty"`

	// Config holds topic config keys and their values (cleanup.policy, retention.ms, ...). The
	// operator sets these keys and only these; keys set by others (rpk, another tool) are left
	// as they are. A key removed from here is reset to the cluster's default.
	// replication.factor is refused: Redpanda would change the replication factor through it,
	// which spec.replicationFactor owns.
	// +kubebuilder:validation:MaxProperties=128
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'replication.factor')",message="config key replication.factor duplicates spec.replicationFactor: set the field instead"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) > 0 && size(k) <= 255)",message="a config key has 1 to 255 characters"
	// +optional
	Config map[string]string `json:"config,omitempty"`

	// DeletionPolicy says what deleting this resource does to the topic. Retain (the default)
	// leaves the topic and its data in Kafka. Delete deletes the topic, and its data, when the
	// resource is deleted, if this resource created or adopted it; a finalizer holds the resource
	// until then, and is dropped, with an event, if the cluster is gone.
	// +kubebuilder:validation:Enum=Retain;Delete
	// +kubebuilder:default=Retain
	// +optional
	DeletionPolicy TopicDeletionPolicy `json:"deletionPolicy,omitempty"`
}

// ClusterReference names a BrokerCluster in the referring resource's namespace.
type ClusterReference struct {
	// Name of the BrokerCluster.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// TopicDeletionPolicy says what deleting a BrokerTopic does to its topic.
type TopicDeletionPolicy string

// Topic deletion policies.
const (
	TopicRetain TopicDeletionPolicy = "Retain"
	TopicDelete TopicDeletionPolicy = "Delete"
)

// TopicOrigin says how a BrokerTopic came to manage its topic.
type TopicOrigin string

// Topic origins.
const (
	// TopicCreating: the resource is about to create the topic; recorded before the request so
	// that a create whose answer was lost is still known as this resource's own.
	TopicCreating TopicOrigin = "Creating"
	// TopicCreated: this resource created the topic.
	TopicCreated TopicOrigin = "Created"
	// TopicAdopted: the topic existed and the resource was annotated to adopt it.
	TopicAdopted TopicOrigin = "Adopted"
)

// AdoptAnnotation, set to "true" on a BrokerTopic, lets it manage a topic that already existed.
const AdoptAnnotation = "broker-operator.dev/adopt"

// BrokerTopicStatus is the observed state of a topic.
type BrokerTopicStatus struct {
	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// TopicName is the topic's name in Kafka.
	// +optional
	TopicName string `json:"topicName,omitempty"`

	// Origin is Created when this resource created the topic, Adopted when it adopted an
	// existing one, and Creating while its create request is in flight. Empty: the resource
	// manages no topic (yet).
	// +kubebuilder:validation:Enum=Creating;Created;Adopted
	// +optional
	Origin TopicOrigin `json:"origin,omitempty"`

	// TopicID is the topic's ID in Kafka when this resource created or adopted it. A topic of
	// the same name with another ID was made by someone else after that: it is not this
	// resource's, and is neither changed nor deleted by it.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	TopicID string `json:"topicID,omitempty"`

	// Partitions is the partition count last seen in Kafka.
	// +optional
	Partitions int32 `json:"partitions,omitempty"`

	// ReplicationFactor is the replication factor last seen in Kafka.
	// +optional
	ReplicationFactor int32 `json:"replicationFactor,omitempty"`

	// ManagedConfig are the config keys the operator set on the topic. It changes these keys and
	// no others, and resets one that leaves spec.config.
	// +listType=set
	// +kubebuilder:validation:MaxItems=128
	// +optional
	ManagedConfig []string `json:"managedConfig,omitempty"`

	// Conditions: Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerTopicList is a list of BrokerTopics.
type BrokerTopicList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BrokerTopic `json:"items"`
}
