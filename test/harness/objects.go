package harness

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/framework"
)

// NewBrokerCluster is a BrokerCluster on the control plane's fake nodes whose admin port is the
// first of its simulated cluster's own ports (admintest.Cluster.AdminPort), so that the
// simulator's BrokerAddressTemplate reaches each broker's listener.
func NewBrokerCluster(ns, name, image string, replicas int32, adminPort int, storage v1alpha1.StorageSpec) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas:     replicas,
			Image:        image,
			Storage:      storage,
			AdminAPI:     v1alpha1.AdminAPISpec{Port: int32(adminPort)},
			NodeSelector: framework.FakeNodeSelector(),
			Tolerations:  framework.FakeNodeTolerations(),
		},
	}
}
