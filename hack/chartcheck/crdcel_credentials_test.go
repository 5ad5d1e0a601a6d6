package chartcheck

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Cloud storage keys are refused in spec.clusterConfig, with a message that says where they go
// (docs/cluster-properties.md, "Tiered storage credentials").
func TestClusterConfigRefusesCloudStorageKeys(t *testing.T) {
	s, v := celValidator(t, "broker-operator.dev_brokerclusters.yaml")
	cluster := func(config map[string]any) map[string]any {
		return map[string]any{"apiVersion": "broker-operator.dev/v1alpha1", "kind": "BrokerCluster",
			"metadata": map[string]any{"name": "kafka", "namespace": "team"},
			"spec": map[string]any{"replicas": int64(3), "image": "redpanda", "storage": map[string]any{"size": "10Gi"},
				"clusterConfig": config,
				"tieredStorage": map[string]any{"credentialsSecretRef": map[string]any{"name": "keys", "secretKeyKey": "secret"}}}}
	}
	for _, tc := range []struct {
		key, want string
	}{
		{"cloud_storage_secret_key", "spec.tieredStorage.credentialsSecretRef"},
		{"cloud_storage_access_key", "spec.tieredStorage.credentialsSecretRef"},
		{"cloud_storage_azure_shared_key", "spec.tieredStorage.credentialsSecretRef"},
		{"cloud_storage_bucket", ""},
		{"cloud_storage_credentials_source", ""},
	} {
		errs, _ := v.Validate(context.Background(), field.NewPath(""), s, cluster(map[string]any{tc.key: "x"}), nil, celconfig.RuntimeCELCostBudget)
		got := errs.ToAggregate()
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: refused: %v", tc.key, got)
		case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
			t.Errorf("%s: want a refusal naming %q, got %v", tc.key, tc.want, got)
		}
	}
}
