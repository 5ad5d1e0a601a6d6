package objects

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The cluster the tests build objects for: team-a/redpanda.
const (
	testNamespace = "team-a"
	testName      = "redpanda"
	// testDomain is the cluster DNS domain the objects are built for, the default one.
	testDomain = admin.DefaultClusterDomain
)

func newBrokerCluster(replicas int32) *v1alpha1.BrokerCluster {
	spec := v1alpha1.BrokerClusterSpec{Replicas: replicas, Image: "redpanda:v25.1.1", AdminAPI: v1alpha1.AdminAPISpec{Port: 9644}}
	spec.Storage.Size = resource.MustParse("10Gi")
	return &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: testName, Namespace: testNamespace, Generation: 1}, Spec: spec}
}

func clusterKey(bc *v1alpha1.BrokerCluster) string { return bc.Namespace + "/" + bc.Name }
