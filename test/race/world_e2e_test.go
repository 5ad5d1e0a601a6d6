//go:build e2e

package race

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	brokerinformers "github.com/broker-operator/broker-operator/pkg/generated/informers/externalversions"
	brokerlisters "github.com/broker-operator/broker-operator/pkg/generated/listers/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// world is the harness's side of one row: its own informer (over the admin client, never
// delayed) on the row's BrokerClusters, the broker simulator, and the link between them
// (brokersim.PodSync): a broker joins when its pod becomes Ready and leaves when its pod goes,
// as the brokers of a real cluster do. It also tells each cluster's driver when something about
// its cluster changed.
type world struct {
	ns   string
	kube kubernetes.Interface
	sim  *admintest.Server
	pods *brokersim.PodSync

	brokerFactory brokerinformers.SharedInformerFactory
	clusters      brokerlisters.BrokerClusterLister

	mu      sync.Mutex
	changed map[string]chan struct{}
}

func newWorld(ns string, kube kubernetes.Interface, brokers versioned.Interface, sim *admintest.Server) (*world, error) {
	w := &world{
		ns: ns, kube: kube, sim: sim,
		brokerFactory: brokerinformers.NewSharedInformerFactoryWithOptions(brokers, 0, brokerinformers.WithNamespace(ns)),
		changed:       map[string]chan struct{}{},
	}
	bcInformer := w.brokerFactory.Brokers().V1alpha1().BrokerClusters()
	w.clusters = bcInformer.Lister()
	onCluster := func(obj any) {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if bc, ok := obj.(*v1alpha1.BrokerCluster); ok {
			w.notify(bc.Name)
		}
	}
	if _, err := bcInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onCluster, UpdateFunc: func(_, cur any) { onCluster(cur) }, DeleteFunc: onCluster,
	}); err != nil {
		return nil, err
	}
	return w, nil
}

// start starts the pod sync and the informer, and waits for their caches.
func (w *world) start(ctx context.Context) error {
	pods, err := brokersim.StartPodSync(ctx, w.kube, w.sim, w.ns)
	if err != nil {
		return err
	}
	w.pods = pods
	w.brokerFactory.Start(ctx.Done())
	for typ, ok := range w.brokerFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("harness informer for %v did not sync", typ)
		}
	}
	return nil
}

func (w *world) shutdown() {
	if w.pods != nil {
		w.pods.Stop()
	}
	w.brokerFactory.Shutdown()
}

// changes returns a channel that is closed at the next change to the cluster. Take it before
// checking a condition, so that no change is missed.
func (w *world) changes(name string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.changed[name]
	if !ok {
		ch = make(chan struct{})
		w.changed[name] = ch
	}
	return ch
}

func (w *world) notify(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.changed[name]; ok {
		close(ch)
		delete(w.changed, name)
	}
}

// converged reports whether a cluster is steady at target brokers (brokersim.PodSync.Converged).
func (w *world) converged(name string, target int32) (bool, string) {
	bc, err := w.clusters.BrokerClusters(w.ns).Get(name)
	if err != nil {
		return false, err.Error()
	}
	return w.pods.Converged(bc, target)
}

// await waits until the cluster converges at target, and reports false with the last reason it
// had not if timeout passes first.
func (w *world) await(ctx context.Context, name string, target int32, timeout time.Duration) (bool, string) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed, podsChanged := w.changes(name), w.pods.Changes()
		ok, why := w.converged(name, target)
		if ok {
			return true, ""
		}
		select {
		case <-changed:
		case <-podsChanged:
		case <-deadline.C:
			return false, why
		case <-ctx.Done():
			return false, "stopped: " + why
		}
	}
}
