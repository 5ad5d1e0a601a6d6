package harness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	brokerinformers "github.com/broker-operator/broker-operator/pkg/generated/informers/externalversions"
	brokerlisters "github.com/broker-operator/broker-operator/pkg/generated/listers/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// recheckEvery is how often Await looks again with nothing changed: a drain can end in the
// simulator with no object or pod changing.
const recheckEvery = time.Second

// Clusters is the harness's own view of one namespace's BrokerClusters, never through the
// operator: an informer over the harness's client (never delayed), and the brokers a PodSync
// reports. It tells whether a cluster has converged, and waits for it.
type Clusters struct {
	ns      string
	pods    *brokersim.PodSync
	factory brokerinformers.SharedInformerFactory
	lister  brokerlisters.BrokerClusterLister

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every BrokerCluster event
}

// StartClusters starts an informer on the BrokerClusters of ns and waits for its cache. Stop it
// with Shutdown.
func StartClusters(ctx context.Context, ns string, brokers versioned.Interface, pods *brokersim.PodSync) (*Clusters, error) {
	c := &Clusters{
		ns: ns, pods: pods, changed: make(chan struct{}),
		factory: brokerinformers.NewSharedInformerFactoryWithOptions(brokers, 0, brokerinformers.WithNamespace(ns)),
	}
	informer := c.factory.Brokers().V1alpha1().BrokerClusters()
	c.lister = informer.Lister()
	notify := func(any) {
		c.mu.Lock()
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify, UpdateFunc: func(_, cur any) { notify(cur) }, DeleteFunc: notify,
	}); err != nil {
		return nil, err
	}
	c.factory.Start(ctx.Done())
	for typ, ok := range c.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			c.factory.Shutdown()
			return nil, fmt.Errorf("harness informer for %v did not sync", typ)
		}
	}
	return c, nil
}

// Shutdown stops the informer.
func (c *Clusters) Shutdown() { c.factory.Shutdown() }

// Lister lists the namespace's BrokerClusters from the harness's cache.
func (c *Clusters) Lister() brokerlisters.BrokerClusterNamespaceLister {
	return c.lister.BrokerClusters(c.ns)
}

// Changes returns a channel that is closed at the next BrokerCluster event. Take it before
// checking a condition, so that no change is missed.
func (c *Clusters) Changes() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Converged reports whether a cluster is steady at target brokers (brokersim.PodSync.Converged),
// and if not, what is missing.
func (c *Clusters) Converged(name string, target int32) (bool, string) {
	bc, err := c.Lister().Get(name)
	if err != nil {
		return false, err.Error()
	}
	return c.pods.Converged(bc, target)
}

// Await waits until the cluster converges at target, and reports false with the last reason it
// had not if the cluster makes no progress for timeout. Progress is a change of what status
// says the operator is doing (brokers current, updated and ready, in each pool too, the broker
// decommissioning or restarting and its phase): a rollout of seven brokers is seven restarts, each of which
// may take its own while, and it is stuck only when none of them moves. It looks again on
// every BrokerCluster event, every change of the broker pods, and every recheckEvery. A value
// from nudges (nil: none) ends the wait at once and is returned.
func (c *Clusters) Await(ctx context.Context, name string, target int32, timeout time.Duration, nudges <-chan func()) (bool, string, func()) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(recheckEvery)
	defer tick.Stop()
	last := c.progress(name)
	for {
		bcChanged, podsChanged := c.Changes(), c.pods.Changes()
		ok, why := c.Converged(name, target)
		if ok {
			return true, "", nil
		}
		if p := c.progress(name); p != last {
			last = p
			deadline.Reset(timeout)
		}
		select {
		case <-bcChanged:
		case <-podsChanged:
		case <-tick.C:
		case n := <-nudges:
			return false, "nudged", n
		case <-deadline.C:
			return false, fmt.Sprintf("no progress for %s: %s", timeout, why), nil
		case <-ctx.Done():
			return false, "stopped: " + why, nil
		}
	}
}

// progress is what status says the operator is doing, for Await to tell a slow step from a
// stuck one.
func (c *Clusters) progress(name string) string {
	bc, err := c.Lister().Get(name)
	if err != nil {
		return err.Error()
	}
	st := bc.Status
	p := fmt.Sprintf("current %d, updated %d, ready %d", st.CurrentReplicas, st.UpdatedReplicas, st.ReadyReplicas)
	if st.DecommissioningBroker != nil {
		p += fmt.Sprintf(", decommissioning %d", *st.DecommissioningBroker)
	}
	if r := st.Restart; r != nil {
		p += fmt.Sprintf(", restarting %+v", *r)
	}
	for _, pool := range st.Pools {
		p += fmt.Sprintf(", pool %s current %d, ready %d", pool.Name, pool.Replicas, pool.ReadyReplicas)
	}
	return p
}
