package brokersim

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A BrokerCluster's default pool is StatefulSet <cluster>, its pods <cluster>-<ordinal> without
// the pool label; a named pool is StatefulSet <cluster>-<pool>, its pods
// <cluster>-<pool>-<ordinal> labelled broker-operator.dev/pool=<pool>. Pool "" is the default
// pool here, as in admintest.

// setKey names one StatefulSet of a cluster: the pods of one pool.
type setKey struct{ namespace, cluster, pool string }

func (k setKey) clusterKey() clusterKey { return clusterKey{k.namespace, k.cluster} }

// setName is the StatefulSet (and headless Service) of a pool of cluster.
func setName(cluster, pool string) string {
	if pool == "" {
		return cluster
	}
	return cluster + "-" + pool
}

// PodPool returns the pool and ordinal of a broker Pod of cluster: its pool label names the
// pool, and its name must be exactly <set>-<ordinal> of that pool's StatefulSet, so that
// <cluster>-blue-0 is never taken for an ordinal of <cluster>. False for any other Pod, and for
// a pool label that is no pool name.
func PodPool(p *corev1.Pod, cluster string) (string, int, bool) {
	pool := p.Labels[v1alpha1.LabelPool]
	if pool != "" && !admintest.ValidPoolName(pool) {
		return "", 0, false
	}
	ordinal, ok := Ordinal(p.Name, setName(cluster, pool))
	return pool, ordinal, ok
}

// statusPool is the pool status.pools names: "default" for the default pool.
func statusPool(pool string) string {
	if pool == "" {
		return v1alpha1.DefaultPoolName
	}
	return pool
}
