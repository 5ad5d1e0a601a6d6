//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// TestBadSpecsRejected checks that the real apiserver turns bad BrokerClusters away with the CRD's
// own messages, on create, on update and through the scale subresource.
func TestBadSpecsRejected(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	clusters := env.Brokers.BrokersV1alpha1().BrokerClusters(ns)

	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.BrokerClusterSpec)
		want   string
	}{
		{"zero replicas", func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 0 }, "a cluster needs at least one broker"},
		{"too many replicas", func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 1001 }, "spec.replicas in body should be less than or equal to 1000"},
		{"no image", func(s *v1alpha1.BrokerClusterSpec) { s.Image = "" }, "spec.image in body should be at least 1 chars long"},
		{"zero storage", func(s *v1alpha1.BrokerClusterSpec) { s.Storage.Size = resource.MustParse("0") }, "storage.size must be a positive quantity"},
		{"admin port out of range", func(s *v1alpha1.BrokerClusterSpec) { s.AdminAPI.Port = 70000 }, "spec.adminAPI.port in body should be less than or equal to 65535"},
		{"external listener on the internal Kafka port", func(s *v1alpha1.BrokerClusterSpec) {
			s.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer, Port: 9092}}
		}, "spec.kafka.external.port must differ from the internal Kafka port 9092"},
		{"a Secret and a cert-manager issuer", func(s *v1alpha1.BrokerClusterSpec) {
			s.Kafka = &v1alpha1.KafkaSpec{TLS: &v1alpha1.ListenerTLS{SecretName: "kafka-tls", IssuerRef: &v1alpha1.IssuerReference{Name: "ca"}}}
		}, "set exactly one of secretName and issuerRef"},
		{"SASL without a superuser", func(s *v1alpha1.BrokerClusterSpec) {
			s.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{}}
		}, "spec.kafka.sasl needs spec.adminAPI.auth"},
		{"node-loss recovery without ghost decommissions", func(s *v1alpha1.BrokerClusterSpec) {
			s.NodeLossRecovery = &v1alpha1.NodeLossRecoverySpec{}
		}, "spec.nodeLossRecovery needs spec.decommissionGhostBrokers"},
		{"a negative node-loss grace period", func(s *v1alpha1.BrokerClusterSpec) {
			s.NodeLossRecovery, s.DecommissionGhostBrokers = &v1alpha1.NodeLossRecoverySpec{GracePeriod: &metav1.Duration{Duration: -time.Minute}}, true
		}, "gracePeriod must not be negative"},
	} {
		bc := env.BrokerCluster(ns, "bad", 3)
		tc.mutate(&bc.Spec)
		_, err := clusters.Create(t.Context(), bc, metav1.CreateOptions{})
		expectInvalid(t, "create with "+tc.name, err, tc.want)
	}

	if _, err := clusters.Create(t.Context(), env.BrokerCluster(ns, "good", 3), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a valid BrokerCluster: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.BrokerClusterSpec)
		want   string
	}{
		{"storage shrink", func(s *v1alpha1.BrokerClusterSpec) { s.Storage.Size = resource.MustParse("512Mi") }, "storage.size cannot shrink"},
		{"storage class set", func(s *v1alpha1.BrokerClusterSpec) { s.Storage.StorageClassName = ptr.To("fast") }, "storage.storageClassName is immutable"},
		{"zero replicas", func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 0 }, "a cluster needs at least one broker"},
	} {
		bc, err := clusters.Get(t.Context(), "good", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tc.mutate(&bc.Spec)
		_, err = clusters.Update(t.Context(), bc, metav1.UpdateOptions{})
		expectInvalid(t, "update with "+tc.name, err, tc.want)
	}

	// kubectl scale goes through the scale subresource, which the same schema guards.
	_, err := brokersim.Kubectl(t.Context(), env.cp.KubeconfigPath, "-n", ns, "scale", "bc/good", "--replicas=0")
	if err == nil || !strings.Contains(err.Error(), "a cluster needs at least one broker") {
		t.Errorf("kubectl scale --replicas=0: want the CRD's message, got %v", err)
	}
	bc, err := clusters.Get(t.Context(), "good", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bc.Spec.Replicas != 3 || bc.Generation != 1 {
		t.Errorf("after rejected updates spec.replicas is %d at generation %d, want 3 at 1", bc.Spec.Replicas, bc.Generation)
	}
}

func expectInvalid(t *testing.T, what string, err error, message string) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: accepted, want rejected with %q", what, message)
	case !apierrors.IsInvalid(err):
		t.Errorf("%s: want an Invalid error with %q, got %v", what, message, err)
	case !strings.Contains(err.Error(), message):
		t.Errorf("%s: error %q does not say %q", what, err, message)
	}
}
