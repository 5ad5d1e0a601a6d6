//go:build e2e

package soak

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

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
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/harness"
)

// world is what the harness sees of the cluster, never through the operator: BrokerClusters
// (harness.Clusters) and the operator's Lease from the apiserver (over the admin client), and the
// brokers the simulator runs for the Pods PodSync reports.
type world struct {
	*harness.Clusters
	ns     string
	sim    *admintest.Server
	pods   *brokersim.PodSync
	leases informers.SharedInformerFactory

	mu            sync.Mutex
	holder        string
	leaderChanges int
}

func newWorld(ctx context.Context, ns, leaseName string, kube kubernetes.Interface, brokers versioned.Interface, sim *admintest.Server, pods *brokersim.PodSync) (*world, error) {
	w := &world{
		ns: ns, sim: sim, pods: pods,
		leases: informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(brokersim.OperatorNamespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) {
				o.FieldSelector = fields.OneTermEqualSelector("metadata.name", leaseName).String()
			})),
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
	w.leases.Start(ctx.Done())
	for typ, ok := range w.leases.WaitForCacheSync(ctx.Done()) {
		if !ok {
			w.leases.Shutdown()
			return nil, fmt.Errorf("harness informer for %v did not sync", typ)
		}
	}
	clusters, err := harness.StartClusters(ctx, ns, brokers, pods)
	if err != nil {
		w.leases.Shutdown()
		return nil, err
	}
	w.Clusters = clusters
	return w, nil
}

func (w *world) shutdown() {
	w.Clusters.Shutdown()
	w.leases.Shutdown()
}

// LeaderChanges counts the times the Lease passed to another holder.
func (w *world) LeaderChanges() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.leaderChanges
}

// decommissioning returns a cluster whose status records a broker being decommissioned, if any.
func (w *world) decommissioning() (*v1alpha1.BrokerCluster, bool) {
	list, err := w.Lister().List(labels.Everything())
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

func nodeString(p *int32) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(int(*p))
}
