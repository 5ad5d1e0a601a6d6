//go:build e2e

package race

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	brokerinformers "github.com/broker-operator/broker-operator/pkg/generated/informers/externalversions"
	brokerlisters "github.com/broker-operator/broker-operator/pkg/generated/listers/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// world is the harness's side of one row: its own informers (over the admin client, never
// delayed) on the row's namespace, the broker simulator, and the link between them: a broker
// joins when its pod becomes Ready and leaves when its pod goes, as the brokers of a real
// cluster do. It also tells each cluster's driver when something about its cluster changed.
type world struct {
	ns   string
	kube kubernetes.Interface
	sim  *admintest.Server

	kubeFactory   informers.SharedInformerFactory
	brokerFactory brokerinformers.SharedInformerFactory
	pods          corelisters.PodLister
	clusters      brokerlisters.BrokerClusterLister

	mu      sync.Mutex
	running map[string][]int // by cluster: the ordinals last reported to the simulator
	changed map[string]chan struct{}
}

func newWorld(ns string, kube kubernetes.Interface, brokers versioned.Interface, sim *admintest.Server) (*world, error) {
	w := &world{
		ns: ns, kube: kube, sim: sim,
		kubeFactory:   informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(ns)),
		brokerFactory: brokerinformers.NewSharedInformerFactoryWithOptions(brokers, 0, brokerinformers.WithNamespace(ns)),
		running:       map[string][]int{},
		changed:       map[string]chan struct{}{},
	}
	podInformer := w.kubeFactory.Core().V1().Pods()
	bcInformer := w.brokerFactory.Brokers().V1alpha1().BrokerClusters()
	w.pods, w.clusters = podInformer.Lister(), bcInformer.Lister()
	onPod := func(obj any) {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if pod, ok := obj.(*corev1.Pod); ok {
			if name := pod.Labels[controller.LabelInstance]; name != "" {
				w.syncBrokers(name)
				w.notify(name)
			}
		}
	}
	onCluster := func(obj any) {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if bc, ok := obj.(*v1alpha1.BrokerCluster); ok {
			w.notify(bc.Name)
		}
	}
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onPod, UpdateFunc: func(_, cur any) { onPod(cur) }, DeleteFunc: onPod,
	}); err != nil {
		return nil, err
	}
	if _, err := bcInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onCluster, UpdateFunc: func(_, cur any) { onCluster(cur) }, DeleteFunc: onCluster,
	}); err != nil {
		return nil, err
	}
	return w, nil
}

// start starts the informers and waits for their caches.
func (w *world) start(ctx context.Context) error {
	w.kubeFactory.Start(ctx.Done())
	w.brokerFactory.Start(ctx.Done())
	for typ, ok := range w.kubeFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("harness informer for %v did not sync", typ)
		}
	}
	for typ, ok := range w.brokerFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("harness informer for %v did not sync", typ)
		}
	}
	return nil
}

func (w *world) shutdown() {
	w.kubeFactory.Shutdown()
	w.brokerFactory.Shutdown()
}

// syncBrokers tells the simulator which of a cluster's pods run a broker: those Ready and not
// being deleted. A pod that went away left for good if its ordinal is at or above the
// StatefulSet's replicas, read live: the StatefulSet shrank before its pods went.
func (w *world) syncBrokers(name string) {
	pods, err := w.pods.Pods(w.ns).List(labels.SelectorFromSet(labels.Set{controller.LabelInstance: name}))
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	var running []int
	for _, p := range pods {
		ordinal, ok := brokersim.Ordinal(p.Name, name)
		if ok && p.DeletionTimestamp == nil && brokersim.PodReady(p) {
			running = append(running, ordinal)
		}
	}
	slices.Sort(running)
	w.mu.Lock()
	before := w.running[name]
	w.running[name] = running
	w.mu.Unlock()
	if slices.Equal(before, running) {
		return
	}
	replicas := 1 << 30 // nothing went: the replica count does not matter
	for _, o := range before {
		if !slices.Contains(running, o) {
			replicas = w.statefulSetReplicas(name)
			break
		}
	}
	w.sim.Cluster(w.ns, name).SyncPods(running, replicas)
}

func (w *world) statefulSetReplicas(name string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sts, err := w.kube.AppsV1().StatefulSets(w.ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0
	}
	if err != nil || sts.Spec.Replicas == nil {
		utilruntime.HandleError(fmt.Errorf("read StatefulSet %s/%s to tell a leaving broker from a restarting one: %v", w.ns, name, err))
		return 1 << 30 // treat it as a restart: never record a leave the harness is unsure of
	}
	return int(*sts.Spec.Replicas)
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

// converged reports whether a cluster is steady at target brokers: the operator has observed the
// spec, current, ready and desired replicas agree, no broker is being decommissioned or
// restarted and every pod runs the current template, exactly the
// pods 0..target-1 run Ready, and exactly target active brokers run in them.
func (w *world) converged(name string, target int32) (bool, string) {
	bc, err := w.clusters.BrokerClusters(w.ns).Get(name)
	if err != nil {
		return false, err.Error()
	}
	st := bc.Status
	if bc.Spec.Replicas != target || st.ObservedGeneration != bc.Generation || st.CurrentReplicas != target ||
		st.ReadyReplicas != target || st.DecommissioningBroker != nil {
		return false, fmt.Sprintf("spec %d, generation %d observed %d, current %d, ready %d, decommissioning %s",
			bc.Spec.Replicas, bc.Generation, st.ObservedGeneration, st.CurrentReplicas, st.ReadyReplicas, decommissioningString(st.DecommissioningBroker))
	}
	if st.Restart != nil || st.UpdatedReplicas != target {
		return false, fmt.Sprintf("rollout: %d of %d updated, restarting %v", st.UpdatedReplicas, target, st.Restart)
	}
	w.mu.Lock()
	running := slices.Clone(w.running[name])
	w.mu.Unlock()
	if len(running) != int(target) || (target > 0 && running[len(running)-1] != int(target)-1) {
		return false, fmt.Sprintf("ready pods %v, want ordinals 0 to %d", running, target-1)
	}
	active := 0
	for _, b := range w.sim.Cluster(w.ns, name).Brokers() {
		if b.PodRunning && b.Status == admin.MembershipActive {
			active++
		}
	}
	if active != int(target) {
		return false, fmt.Sprintf("%d active brokers, want %d", active, target)
	}
	return true, ""
}

// await waits until the cluster converges at target, and reports false with the last reason it
// had not if timeout passes first.
func (w *world) await(ctx context.Context, name string, target int32, timeout time.Duration) (bool, string) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed := w.changes(name)
		ok, why := w.converged(name, target)
		if ok {
			return true, ""
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false, why
		case <-ctx.Done():
			return false, "stopped: " + why
		}
	}
}

// describePods says, for a stuck cluster, where each of its pods is.
func (w *world) describePods(name string) string {
	pods, err := w.pods.Pods(w.ns).List(labels.SelectorFromSet(labels.Set{controller.LabelInstance: name}))
	if err != nil {
		return err.Error()
	}
	slices.SortFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	var out []string
	for _, p := range pods {
		state := string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			state += ", deleting"
		}
		if brokersim.PodReady(p) {
			state += ", ready"
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
				state += ", unscheduled: " + c.Message
			}
		}
		out = append(out, p.Name+" ("+state+")")
	}
	return strings.Join(out, "; ")
}

func decommissioningString(p *int32) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(int(*p))
}
