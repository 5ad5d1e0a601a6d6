package brokers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The cluster the tests ask about: team-a/redpanda, and the superuser of tests with auth.
const (
	testNamespace = "team-a"
	testName      = "redpanda"
	testUsername  = "operator"
	testPassword  = "pw-7f3a9c-do-not-log"
)

func newBrokerCluster(replicas int32) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: testName, Namespace: testNamespace, Generation: 1},
		Spec: v1alpha1.BrokerClusterSpec{Replicas: replicas, AdminAPI: v1alpha1.AdminAPISpec{Port: 9644}}}
}
