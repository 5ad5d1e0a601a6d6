package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerUser is a SCRAM user of a BrokerCluster in the same namespace, named metadata.name,
// with the ACLs of its principal User:<metadata.name>. The operator creates the user through
// the brokers' admin API with the mechanism of the cluster's spec.kafka.sasl, sets its password
// from a Secret, and keeps its ACLs to spec.authorization through the Kafka API. It leaves a user
// it did not create alone until the resource is annotated broker-operator.dev/adopt=true, and
// never deletes one it did not create.
//
// The root rule sees metadata.name, from which the generated Secret's name is made.
//
// +kubebuilder:resource:scope=Namespaced,shortName=bu,categories=all
// +kubebuilder:validation:XValidation:rule="(has(self.spec.authentication) && has(self.spec.authentication.password)) || size(self.metadata.name) <= 241",message="the generated Secret is named metadata.name + '-credentials', at most 253 characters: use a shorter name or set spec.authentication.password"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.clusterRef.name`
// +kubebuilder:printcolumn:name="Origin",type=string,JSONPath=`.status.origin`
// +kubebuilder:printcolumn:name="ACLs",type=integer,JSONPath=`.status.acls`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BrokerUser struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BrokerUserSpec `json:"spec"`
	// +optional
	Status BrokerUserStatus `json:"status,omitempty"`
}

// BrokerUserSpec is the desired state of one SCRAM user and its ACLs.
type BrokerUserSpec struct {
	// ClusterRef names the BrokerCluster, in this namespace, that holds the user. Its
	// spec.kafka.sasl must be set: the user's SCRAM mechanism is the cluster's. Immutable.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.clusterRef is immutable"
	ClusterRef ClusterReference `json:"clusterRef"`

	// Authentication says where the user's password comes from. Unset: the operator generates
	// a password into the Secret <metadata.name>-credentials, which it owns.
	// +optional
	Authentication *UserAuthentication `json:"authentication,omitempty"`

	// Authorization holds the ACLs of the principal User:<metadata.name>. Unset: the operator
	// leaves that principal's ACLs as they are. Set, even with no ACLs: the principal's ACLs
	// are exactly these, and one the list does not hold is deleted.
	// +optional
	Authorization *UserAuthorization `json:"authorization,omitempty"`
}

// UserAuthentication is where a BrokerUser's password comes from.
type UserAuthentication struct {
	// Password names a Secret key that holds the password. Unset: generated.
	// +optional
	Password *UserPassword `json:"password,omitempty"`
}

// UserPassword is a password taken from a Secret.
type UserPassword struct {
	// ValueFrom names the Secret key.
	ValueFrom PasswordSource `json:"valueFrom"`
}

// PasswordSource names where a password is read.
type PasswordSource struct {
	// SecretKeyRef is a key of a Secret in this namespace. A change of the Secret sets the new
	// password on the cluster.
	SecretKeyRef SecretKeyReference `json:"secretKeyRef"`
}

// SecretKeyReference names one key of a Secret in the referring resource's namespace.
type SecretKeyReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key of the Secret's data. Unset: password.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:default=password
	// +optional
	Key string `json:"key,omitempty"`
}

// UserAuthorization holds a principal's ACLs.
type UserAuthorization struct {
	// ACLs of the principal User:<metadata.name>. Each rule allows or denies its operations on
	// one resource from one host.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	ACLs []ACLRule `json:"acls,omitempty"`
}

// ACLRule is one rule: allow or deny operations on a resource from a host. The CRD refuses an
// operation Kafka does not define for the resource's type.
//
// +kubebuilder:validation:XValidation:rule="self.resource.type != 'topic' || self.operations.all(o, o in ['All', 'Read', 'Write', 'Create', 'Delete', 'Alter', 'Describe', 'DescribeConfigs', 'AlterConfigs'])",message="a topic ACL's operations are All, Read, Write, Create, Delete, Alter, Describe, DescribeConfigs or AlterConfigs"
// +kubebuilder:validation:XValidation:rule="self.resource.type != 'group' || self.operations.all(o, o in ['All', 'Read', 'Delete', 'Describe'])",message="a group ACL's operations are All, Read, Delete or Describe"
// +kubebuilder:validation:XValidation:rule="self.resource.type != 'cluster' || self.operations.all(o, o in ['All', 'Create', 'Alter', 'Describe', 'ClusterAction', 'DescribeConfigs', 'AlterConfigs', 'IdempotentWrite'])",message="a cluster ACL's operations are All, Create, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs or IdempotentWrite"
// +kubebuilder:validation:XValidation:rule="self.resource.type != 'transactionalId' || self.operations.all(o, o in ['All', 'Write', 'Describe'])",message="a transactionalId ACL's operations are All, Write or Describe"
type ACLRule struct {
	// Type is allow or deny. A deny wins over an allow for the same operation.
	// +kubebuilder:validation:Enum=allow;deny
	// +kubebuilder:default=allow
	// +optional
	Type ACLPermission `json:"type,omitempty"`
	// Resource the rule is about.
	Resource ACLResource `json:"resource"`
	// Host the principal connects from, or * for any.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:default="*"
	// +optional
	Host string `json:"host,omitempty"`
	// Operations the rule allows or denies.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=9
	// +listType=set
	Operations []ACLOperation `json:"operations"`
}

// ACLResource is what an ACL rule is about.
//
// +kubebuilder:validation:XValidation:rule="self.type == 'cluster' ? !has(self.name) : has(self.name)",message="resource.name is required for a topic, group or transactionalId and must be unset for the cluster"
// +kubebuilder:validation:XValidation:rule="self.type != 'cluster' || !has(self.patternType) || self.patternType == 'literal'",message="the cluster resource has no name to match: patternType must be literal"
type ACLResource struct {
	// Type of the resource: topic, group, cluster or transactionalId.
	// +kubebuilder:validation:Enum=topic;group;cluster;transactionalId
	Type ACLResourceType `json:"type"`
	// Name of the topic, group or transactional ID, or * for every one; a prefix under
	// patternType prefixed. Unset for the cluster.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name string `json:"name,omitempty"`
	// PatternType says how name matches: literal (the name itself) or prefixed (every name
	// that starts with it).
	// +kubebuilder:validation:Enum=literal;prefixed
	// +kubebuilder:default=literal
	// +optional
	PatternType ACLPatternType `json:"patternType,omitempty"`
}

// ACLPermission allows or denies.
type ACLPermission string

// ACL permissions.
const (
	ACLAllow ACLPermission = "allow"
	ACLDeny  ACLPermission = "deny"
)

// ACLResourceType is the kind of resource an ACL is about.
type ACLResourceType string

// ACL resource types.
const (
	ACLTopic           ACLResourceType = "topic"
	ACLGroup           ACLResourceType = "group"
	ACLCluster         ACLResourceType = "cluster"
	ACLTransactionalID ACLResourceType = "transactionalId"
)

// ACLPatternType says how an ACL's resource name matches.
type ACLPatternType string

// ACL pattern types.
const (
	ACLLiteral  ACLPatternType = "literal"
	ACLPrefixed ACLPatternType = "prefixed"
)

// ACLOperation is a Kafka operation an ACL allows or denies.
// +kubebuilder:validation:Enum=All;Read;Write;Create;Delete;Alter;Describe;ClusterAction;DescribeConfigs;AlterConfigs;IdempotentWrite
type ACLOperation string

// UserOrigin says how a BrokerUser came to manage its user.
type UserOrigin string

// User origins.
const (
	// UserCreating: the resource is about to create the user; recorded before the request so
	// that a create whose answer was lost is still known as this resource's own.
	UserCreating UserOrigin = "Creating"
	// UserCreated: this resource created the user.
	UserCreated UserOrigin = "Created"
	// UserAdopted: the user existed and the resource was annotated to adopt it.
	UserAdopted UserOrigin = "Adopted"
)

// BrokerUserStatus is the observed state of a user.
type BrokerUserStatus struct {
	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Origin is Created when this resource created the user, Adopted when it adopted an
	// existing one, and Creating while its create request is in flight. Empty: the resource
	// manages no user (yet). Only a Created user is deleted with the resource.
	// +kubebuilder:validation:Enum=Creating;Created;Adopted
	// +optional
	Origin UserOrigin `json:"origin,omitempty"`

	// Mechanism is the SCRAM mechanism of the credentials last set.
	// +optional
	Mechanism SASLMechanism `json:"mechanism,omitempty"`

	// SecretName is the Secret the password was last read from.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SecretName string `json:"secretName,omitempty"`

	// PasswordVersion is that Secret's resourceVersion when its password was last set on the
	// cluster; a Secret changed since has its password set again.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	PasswordVersion string `json:"passwordVersion,omitempty"`

	// ACLs is the number of ACLs of the principal after the last change, when
	// spec.authorization is set.
	// +optional
	ACLs int32 `json:"acls,omitempty"`

	// Conditions: Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BrokerUserList is a list of BrokerUsers.
type BrokerUserList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BrokerUser `json:"items"`
}
