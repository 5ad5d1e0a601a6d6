package v1alpha1

// TieredStorageSpec holds what tiered storage needs beyond its cluster properties
// (cloud_storage_enabled, cloud_storage_region, cloud_storage_bucket and the rest, which go in
// spec.clusterConfig): the keys, which never go there.
type TieredStorageSpec struct {
	// CredentialsSecretRef names a Secret of this namespace whose keys the operator writes into
	// cloud_storage_access_key and cloud_storage_secret_key through the admin API, as Redpanda's
	// chart's storage.tiered.credentialsSecretRef does. When spec.clusterConfig sets
	// cloud_storage_azure_storage_account and cloud_storage_azure_container, the secret key goes
	// into cloud_storage_azure_shared_key instead. The values are copied nowhere else. Leave it
	// out to take credentials from the broker pods' service account (spec.serviceAccount) with
	// cloud_storage_credentials_source in spec.clusterConfig.
	// +optional
	CredentialsSecretRef *CloudCredentialsSecretRef `json:"credentialsSecretRef,omitempty"`
}

// CloudCredentialsSecretRef is a Secret holding cloud storage keys, and the keys to read.
type CloudCredentialsSecretRef struct {
	// Name of the Secret, in the BrokerCluster's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// AccessKeyKey is the key of the Secret holding the access key (cloud_storage_access_key).
	// Leave it out when there is none, as with an Azure shared key.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	AccessKeyKey string `json:"accessKeyKey,omitempty"`

	// SecretKeyKey is the key of the Secret holding the secret key (cloud_storage_secret_key, or
	// cloud_storage_azure_shared_key for Azure).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SecretKeyKey string `json:"secretKeyKey"`
}
