//go:build e2e

package e2e

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TestHTTPAPISpecsOnTheAPIServer checks, on the real apiserver, that spec.schemaRegistry and
// spec.httpProxy get their default ports and that the CRD's rules on them refuse with their
// messages once the defaults are in (docs/schema-registry-and-http-proxy.md).
func TestHTTPAPISpecsOnTheAPIServer(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	clusters := env.Brokers.BrokersV1alpha1().BrokerClusters(ns)

	bc := env.BrokerCluster(ns, "apis", 3)
	bc.Spec.SchemaRegistry, bc.Spec.HTTPProxy = &v1alpha1.SchemaRegistrySpec{}, &v1alpha1.HTTPProxySpec{}
	got, err := clusters.Create(t.Context(), bc, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatalf("create with both APIs: %v", err)
	}
	if got.Spec.SchemaRegistry.Port != 8081 || got.Spec.HTTPProxy.Port != 8082 {
		t.Errorf("ports %d and %d, want the defaults 8081 and 8082", got.Spec.SchemaRegistry.Port, got.Spec.HTTPProxy.Port)
	}

	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.BrokerClusterSpec)
		want   string
	}{
		{"the Schema Registry on the HTTP Proxy's default port", func(s *v1alpha1.BrokerClusterSpec) {
			s.SchemaRegistry, s.HTTPProxy = &v1alpha1.SchemaRegistrySpec{Port: 8082}, &v1alpha1.HTTPProxySpec{}
		}, "must differ from each other"},
		{"the HTTP Proxy on the admin port", func(s *v1alpha1.BrokerClusterSpec) {
			s.HTTPProxy = &v1alpha1.HTTPProxySpec{Port: s.AdminAPI.Port}
		}, "must differ from each other"},
		{"http_basic without SASL", func(s *v1alpha1.BrokerClusterSpec) {
			s.SchemaRegistry = &v1alpha1.SchemaRegistrySpec{AuthenticationMethod: v1alpha1.HTTPAuthBasic}
		}, "needs spec.kafka.sasl"},
		{"an external listener without Kafka's", func(s *v1alpha1.BrokerClusterSpec) {
			s.HTTPProxy = &v1alpha1.HTTPProxySpec{External: &v1alpha1.HTTPExternalListener{}}
		}, "need spec.kafka.external"},
		{"node ports over Kafka's", func(s *v1alpha1.BrokerClusterSpec) {
			s.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000}}}
			s.HTTPProxy = &v1alpha1.HTTPProxySpec{External: &v1alpha1.HTTPExternalListener{NodePort: &v1alpha1.HTTPNodePort{BasePort: 31001}}}
		}, "nor overlap"},
	} {
		bc := env.BrokerCluster(ns, "bad", 3)
		tc.mutate(&bc.Spec)
		_, err := clusters.Create(t.Context(), bc, metav1.CreateOptions{})
		expectInvalid(t, "create with "+tc.name, err, tc.want)
	}
}
