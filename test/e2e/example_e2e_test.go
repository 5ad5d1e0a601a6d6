//go:build e2e

package e2e

import (
	"os"
	"regexp"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// exampleBlock is a fenced YAML block that holds a whole BrokerCluster.
var exampleBlock = regexp.MustCompile("(?s)```yaml\n(apiVersion: broker-operator\\.dev/v1alpha1\n.*?)```")

// documentedExample is the BrokerCluster example of a document, relative to the repository root.
func documentedExample(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile("../../" + path)
	if err != nil {
		t.Fatal(err)
	}
	m := exampleBlock.FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s has no BrokerCluster example", path)
	}
	return string(m[1])
}

// TestDocumentedExampleAccepted checks that the README's BrokerCluster (external listener, Kafka
// TLS, SASL, rack awareness, cluster properties) is one the CRD accepts, field for field, and that
// docs/broker-pod.md shows the same one. The create is a dry run: nothing is stored, so the
// operator has nothing to reconcile.
func TestDocumentedExampleAccepted(t *testing.T) {
	t.Parallel()
	example := documentedExample(t, "README.md")
	if other := documentedExample(t, "docs/broker-pod.md"); other != example {
		t.Errorf("docs/broker-pod.md's example differs from the README's:\n%s\nREADME:\n%s", other, example)
	}
	var bc v1alpha1.BrokerCluster
	if err := yaml.UnmarshalStrict([]byte(example), &bc); err != nil {
		t.Fatalf("the README's example does not decode into a BrokerCluster: %v", err)
	}
	k := bc.Spec.Kafka
	if k == nil || k.External == nil || k.TLS == nil || k.External.TLS == nil || k.SASL == nil || len(bc.Spec.ClusterConfig) == 0 {
		t.Fatalf("the README's example lacks an external listener, Kafka TLS, SASL or cluster properties: %+v", bc.Spec)
	}
	bc.Namespace = env.NewNamespace(t)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(bc.Namespace).Create(t.Context(), &bc, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatalf("the apiserver refused the README's example: %v", err)
	}
}
