//go:build e2e

package soak

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	brokerinformers "github.com/broker-operator/broker-operator/pkg/generated/informers/externalversions"
	brokerlisters "github.com/broker-operator/broker-operator/pkg/generated/listers/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// world is what the harness sees of the cluster, never through the operator: BrokerClusters and
// the operator's Lease from the apiserver (over the admin client), and the brokers the simulator
// runs for the Pods PodSync reports.
type world struct {
	ns   string
	sim  *admintest.Server
	pods *brokersim.PodSync

	factory  brokerinformers.SharedInformerFactory
	clusters brokerlisters.BrokerClusterLister
	leases   informers.SharedInformerFactory

	mu            sync.Mutex
	changed       chan struct{} // closed and replaced on every BrokerCluster event
	holder        string
	leaderChanges int
}

func newWorld(ctx context.Context, ns, leaseName string, kube kubernetes.Interface, brokers versioned.Interface, sim *admintest.Server, pods *brokersim.PodSync) (*world, error) {
	w := &world{
		ns: ns, sim: sim, pods: pods, changed: make(chan struct{}),
		factory: brokerinformers.NewSharedInformerFactoryWithOptions(brokers, 0, brokerinformers.WithNamespace(ns)),
		leases: informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(brokersim.OperatorNamespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) {
				o.FieldSelector = fields.OneTermEqualSelector("metadata.name", leaseName).String()
			})),
	}
	bcInformer := w.factory.Brokers().V1alpha1().BrokerClusters()
	w.clusters = bcInformer.Lister()
	notify := func(any) {
		w.mu.Lock()
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	}
	if _, err := bcInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify, UpdateFunc: func(_, cur any) { notify(cur) }, DeleteFunc: notify,
	}); err != nil {
		return nil, err
	}
	onLease := func(obj any) {
		lease, ok := obj.(*coordinationv1.Lease)
		if !ok {
			return
		}
		holder := ptr.Deref(lease.Spec.HolderIdentity, "")
		w.mu.Lock()
		defer w.mu.Unlock()
		if holder != "" && holder != w.holder {
			if w.holder != "" {
				w.leaderChanges++
			}
			w.holder = holder
		}
	}
	if _, err := w.leases.Coordination().V1().Leases().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onLease, UpdateFunc: func(_, cur any) { onLease(cur) },
	}); err != nil {
		return nil, err
	}
	w.factory.Start(ctx.Done())
	w.leases.Start(ctx.Done())
	for typ, ok := range w.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("harness informer for %v did not sync", typ)
		}
	}
	for typ, ok := range w.leases.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("harness informer for %v did not sync", typ)
		}
	}
	return w, nil
}

func (w *world) shutdown() {
	w.factory.Shutdown()
	w.leases.Shutdown()
}

func (w *world) changes() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

// LeaderChanges counts the times the Lease passed to another holder.
func (w *world) LeaderChanges() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.leaderChanges
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
// had not if timeout passes first. It looks again on every BrokerCluster event and every change
// of the broker pods, and once a second in case a drain ended with nothing else changing. A value
// from nudges (nil: none) ends the wait at once and is returned.
func (w *world) await(ctx context.Context, name string, target int32, timeout time.Duration, nudges <-chan func()) (bool, string, func()) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		bcChanged, podsChanged := w.changes(), w.pods.Changes()
		ok, why := w.converged(name, target)
		if ok {
			return true, "", nil
		}
		select {
		case <-bcChanged:
		case <-podsChanged:
		case <-tick.C:
		case n := <-nudges:
			return false, "nudged", n
		case <-deadline.C:
			return false, why, nil
		case <-ctx.Done():
			return false, "stopped: " + why, nil
		}
	}
}

// decommissioning returns a cluster whose status records a broker being decommissioned, if any.
func (w *world) decommissioning() (*v1alpha1.BrokerCluster, bool) {
	list, err := w.clusters.BrokerClusters(w.ns).List(everything)
	if err != nil {
		return nil, false
	}
	slices.SortFunc(list, func(a, b *v1alpha1.BrokerCluster) int { return strings.Compare(a.Name, b.Name) })
	for _, bc := range list {
		if bc.Status.DecommissioningBroker != nil {
			return bc, true
		}
	}
	return nil, false
}

var everything = labels.Everything()

func nodeString(p *int32) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(int(*p))
}
