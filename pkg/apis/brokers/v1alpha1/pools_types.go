package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// DefaultPoolName names, in status.pools, the pool made of the cluster's own fields
// (spec.replicas, spec.storage, spec.resources and the placement fields). No named pool may
// take it.
const DefaultPoolName = "default"

// LabelPool is the label every pod, StatefulSet and Service of a named pool carries, with the
// pool's name. The default pool's objects do not carry it: they are what they were before pools.
const LabelPool = "broker-operator.dev/pool"

// BrokerPool is a named group of brokers with their own StatefulSet, storage, resources and
// placement. Image, listeners, cluster properties and security are the cluster's.
//
// A pool's StatefulSet and headless Service are <cluster>-<pool>, its pods
// <cluster>-<pool>-<ordinal>, and each pod carries broker-operator.dev/pool=<pool>.
type BrokerPool struct {
	// Name of the pool: a DNS label that starts with a letter, and not "default", which names
	// the pool made of the cluster's own fields.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self != 'default'",message="a pool cannot be named default: that name is the pool made of spec.replicas, spec.storage and the cluster's other fields"
	Name string `json:"name"`

	// Replicas is the number of brokers in the pool. Lowering it decommissions the pool's
	// brokers one at a time, highest pod ordinal first, once every pool's added brokers have
	// joined the cluster.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Replicas int32 `json:"replicas"`

	// Storage is the persistent volume each of the pool's brokers gets. Its size can grow but
	// never shrink, and its storage class cannot change.
	Storage StorageSpec `json:"storage"`

	// Resources of the pool's broker containers.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// PodAnnotations are added to the pool's broker pods.
	// +optional
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`

	// NodeSelector constrains the pool's broker pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations of the pool's broker pods.
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// Affinity of the pool's broker pods, with the same defaults and rules as spec.affinity.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// TopologySpreadConstraints of the pool's broker pods, with the same default and rules as
	// spec.topologySpreadConstraints.
	// +optional
	// +listType=atomic
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// ServiceAccountName is an existing service account the pool's broker pods run as, in
	// place of spec.serviceAccount's. Unset: spec.serviceAccount's.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// ImagePullSecrets of the pool's broker pods, in place of spec.imagePullSecrets when set.
	// Unset: spec.imagePullSecrets.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// PoolStatus is one pool's brokers, as of the last reconcile.
type PoolStatus struct {
	// Name of the pool; "default" for the pool made of the cluster's own fields.
	Name string `json:"name"`

	// Replicas is the number of brokers the pool is meant to run right now: its StatefulSet's
	// replicas. It moves towards the pool's spec replicas, one decommissioned broker at a time
	// on the way down.
	// +optional
	Replicas int32 `json:"replicas"`

	// ReadyReplicas is the number of the pool's broker pods that are ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`

	// UpdatedReplicas is the number of the pool's broker pods made from its current pod
	// template.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas"`

	// DecommissioningBroker is the broker (node) ID of this pool being decommissioned, if any.
	// Never more than one across all pools.
	// +optional
	DecommissioningBroker *int32 `json:"decommissioningBroker,omitempty"`

	// Storage is how a growth of a named pool's storage.size goes, as status.storage is for the
	// default pool: the size its claims are grown to and each claim's state.
	// +optional
	Storage *StorageStatus `json:"storage,omitempty"`
}
