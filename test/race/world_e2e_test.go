//go:build e2e

package race

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/harness"
)

// world is the harness's side of one row: the broker simulator, the link between it and the
// row's pods (brokersim.PodSync: a broker joins when its pod becomes Ready and leaves when its
// pod goes, as the brokers of a real cluster do), and the harness's own view of the row's
// BrokerClusters (harness.Clusters), which says when a cluster has converged.
type world struct {
	ns       string
	kube     kubernetes.Interface
	brokers  versioned.Interface
	sim      *admintest.Server
	pods     *brokersim.PodSync
	clusters *harness.Clusters
}

func newWorld(ns string, kube kubernetes.Interface, brokers versioned.Interface, sim *admintest.Server) *world {
	return &world{ns: ns, kube: kube, brokers: brokers, sim: sim}
}

// start starts the pod sync and the harness's informer, and waits for their caches.
func (w *world) start(ctx context.Context) error {
	pods, err := brokersim.StartPodSync(ctx, w.kube, w.sim, w.ns)
	if err != nil {
		return err
	}
	w.pods = pods
	w.clusters, err = harness.StartClusters(ctx, w.ns, w.brokers, pods)
	return err
}

func (w *world) shutdown() {
	if w.clusters != nil {
		w.clusters.Shutdown()
	}
	if w.pods != nil {
		w.pods.Stop()
	}
}
