package v1alpha1

// BrokerServiceAccount is the service account of the broker pods. With create, the operator
// makes it (owned by the BrokerCluster, deleted with it) and keeps its annotations as the spec
// says; name then names it, as Redpanda's chart's serviceAccount.create and .name do. Without
// create, name is an existing service account the operator only names in the pods.
//
// +kubebuilder:validation:XValidation:rule="(has(self.create) && self.create) || has(self.name)",message="spec.serviceAccount needs a name, or create: true: leave spec.serviceAccount out for the namespace's default service account"
// +kubebuilder:validation:XValidation:rule="(has(self.create) && self.create) || !has(self.annotations)",message="spec.serviceAccount.annotations need create: true: the operator annotates only a service account it makes"
type BrokerServiceAccount struct {
	// Name of the service account. With create, the name of the one the operator makes
	// (default: the cluster's name); without, an existing one.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`

	// Create makes the operator create the service account and own it.
	// +optional
	Create bool `json:"create,omitempty"`

	// Annotations of the service account the operator makes (create: true), for example
	// eks.amazonaws.com/role-arn or iam.gke.io/gcp-service-account. The operator keeps exactly
	// these: an annotation removed here is removed from the service account.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Annotations map[string]string `json:"annotations,omitempty"`
}
