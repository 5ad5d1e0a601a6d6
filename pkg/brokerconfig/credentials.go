package brokerconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Cloud storage keys come from the Secret spec.tieredStorage.credentialsSecretRef names and go
// to the brokers through the admin API with the other cluster properties, never into the
// BrokerCluster, a ConfigMap, a pod's environment, a log, an event or the status. Redpanda's
// chart reads the same Secret into REDPANDA_CLOUD_STORAGE_* variables that its init container
// and its config sync job substitute into the configuration (redpanda-data/redpanda-operator
// charts/redpanda/values.go, TieredStorageCredentials.AsEnvVars; configmap.tpl.go,
// BootstrapFile); the operator, which applies cluster properties itself, needs no variable.

const (
	AccessKeyProperty      = "cloud_storage_access_key"
	SecretKeyProperty      = "cloud_storage_secret_key"
	AzureSharedKeyProperty = "cloud_storage_azure_shared_key"
)

// secretProperties are the properties Redpanda declares is_secret::yes and answers "[secret]"
// for in GET /v1/cluster_config (src/v/config/configuration.cc; config/property.h to_json).
var secretProperties = []string{SecretKeyProperty, AzureSharedKeyProperty}

// RedactedValue is Redpanda's placeholder for a secret property's value
// (src/v/config/base_property.h, secret_placeholder).
var RedactedValue = json.RawMessage(`"[secret]"`)

// secretKeyProperty is the property the Secret's secret key goes to: the Azure shared key when
// spec.clusterConfig names an Azure storage account and container, as the chart decides
// (charts/redpanda/values.go, TieredStorageConfig.HasAzureCanaries).
func secretKeyProperty(bc *v1alpha1.BrokerCluster) string {
	_, account := bc.Spec.ClusterConfig["cloud_storage_azure_storage_account"]
	_, container := bc.Spec.ClusterConfig["cloud_storage_azure_container"]
	if account && container {
		return AzureSharedKeyProperty
	}
	return SecretKeyProperty
}

// CredentialsRef is bc's spec.tieredStorage.credentialsSecretRef, nil when there is none.
func CredentialsRef(bc *v1alpha1.BrokerCluster) *v1alpha1.CloudCredentialsSecretRef {
	if bc.Spec.TieredStorage == nil {
		return nil
	}
	return bc.Spec.TieredStorage.CredentialsSecretRef
}

// CredentialProperties are the names of the properties bc's Secret sets, sorted.
func CredentialProperties(bc *v1alpha1.BrokerCluster) []string {
	ref := CredentialsRef(bc)
	if ref == nil {
		return nil
	}
	out := []string{secretKeyProperty(bc)}
	if ref.AccessKeyKey != "" {
		out = append(out, AccessKeyProperty)
	}
	slices.Sort(out)
	return out
}

// CloudCredentials are the keys read from the Secret. They are never logged: String and
// GoString show the version only.
type CloudCredentials struct {
	values map[string]string // property to key
	// Version identifies the Secret as read (status.clusterConfig.credentialsVersion); "" when
	// the spec names no Secret.
	Version string
}

func (c CloudCredentials) String() string {
	return fmt.Sprintf("CloudCredentials{version:%s}", c.Version)
}
func (c CloudCredentials) GoString() string { return c.String() }

// MissingKeyError says which key of the Secret is missing or empty; it holds no value.
type MissingKeyError struct{ Key string }

func (e *MissingKeyError) Error() string { return fmt.Sprintf("key %q is missing or empty", e.Key) }

// NewCloudCredentials takes the keys bc's credentialsSecretRef names from the Secret's data.
// name, uid and resourceVersion identify the Secret as read, for the version.
func NewCloudCredentials(bc *v1alpha1.BrokerCluster, data map[string][]byte, uid, resourceVersion string) (CloudCredentials, error) {
	ref := CredentialsRef(bc)
	if ref == nil {
		return CloudCredentials{}, nil
	}
	c := CloudCredentials{values: map[string]string{}}
	take := func(property, key string) error {
		v := data[key]
		if len(v) == 0 {
			return &MissingKeyError{Key: key}
		}
		c.values[property] = string(v)
		return nil
	}
	if err := take(secretKeyProperty(bc), ref.SecretKeyKey); err != nil {
		return CloudCredentials{}, err
	}
	if ref.AccessKeyKey != "" {
		if err := take(AccessKeyProperty, ref.AccessKeyKey); err != nil {
			return CloudCredentials{}, err
		}
	}
	h := sha256.New()
	for _, s := range []string{ref.Name, uid, resourceVersion, ref.AccessKeyKey, ref.SecretKeyKey, secretKeyProperty(bc)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	c.Version = hex.EncodeToString(h.Sum(nil))[:32]
	return c, nil
}

// AddTo puts the keys into desired as JSON strings, whatever text they hold.
func (c CloudCredentials) AddTo(desired map[string]string) {
	for property, v := range c.values {
		b, _ := json.Marshal(v) // a string always marshals
		desired[property] = string(b)
	}
}

// KeepApplied moves out of d.Upsert the secret keys the brokers already have: Redpanda answers
// "[secret]" for them, so their values cannot be compared, and a key the brokers hold from the
// same version of the Secret (applied, the version status.clusterConfig recorded) is taken as
// unchanged. Without it every check would write the key again and bump config_version forever.
func (c CloudCredentials) KeepApplied(d *ConfigDiff, current Current, applied string) {
	if c.Version == "" || applied != c.Version {
		return
	}
	for _, name := range secretProperties {
		have, set := current.Set[name]
		if _, upsert := d.Upsert[name]; !upsert || !set || !SameValue(have, RedactedValue) {
			continue
		}
		delete(d.Upsert, name)
		d.Unchanged = append(d.Unchanged, name)
	}
	slices.Sort(d.Unchanged)
}
