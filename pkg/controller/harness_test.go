package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

const (
	testNamespace = "team-a"
	testName      = "redpanda"
	testKey       = testNamespace + "/" + testName
	pollInterval  = 30 * time.Second
)

var brokerClustersGVR = v1alpha1.SchemeGroupVersion.WithResource("brokerclusters")

// harnessOptions shape a harness.
type harnessOptions struct {
	strategy ReadStrategy
	guards   Guards
	// hold wraps the BrokerCluster watch in a Holder: the controller's informer sees nothing
	// until the test releases it.
	hold bool
	// delay, when set, delays every BrokerCluster watch event by a duration it draws (real
	// clock), keeping their order.
	delay func() time.Duration
	// drainTime is how long the simulator's drains take on its fake clock; zero finishes a
	// drain the next time anything looks at the cluster.
	drainTime time.Duration
}

// harness is a controller over fake clientsets with real informers, a broker simulator, and a
// small stand-in for the StatefulSet controller and kubelet (playStatefulSet). Tests drive
// reconciles one at a time.
type harness struct {
	t        *testing.T
	ctx      context.Context
	kube     *kubefake.Clientset
	brokers  *brokerfake.Clientset
	bcTrack  k8stesting.ObjectTracker
	holder   *writebacktest.Holder
	holding  bool
	sim      *admintest.Server
	simClock *admintest.FakeClock
	cluster  *admintest.Cluster
	clock    *testingclock.FakeClock
	registry *prometheus.Registry
	recorder *record.FakeRecorder
	c        *Controller
	nc       *namespaceCache
	// informed gets a value after any informer event (the indexer is updated by then).
	informed chan struct{}
	// staleReads counts BrokerCluster reads older than what the apiserver held at the time.
	staleReads int
}

func newHarness(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{
		t:        t,
		ctx:      ctx,
		kube:     kubefake.NewClientset(),
		brokers:  brokerfake.NewClientset(),
		simClock: admintest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		clock:    testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		registry: prometheus.NewRegistry(),
		recorder: record.NewFakeRecorder(10000),
		informed: make(chan struct{}, 1),
	}
	writebacktest.StampServerFields(&h.kube.Fake, h.kube.Tracker())
	h.bcTrack = writebacktest.StampServerFields(&h.brokers.Fake, h.brokers.Tracker())
	h.brokers.PrependReactor("patch", "brokerclusters", resourceVersionPrecondition(h.bcTrack))
	if opts.hold {
		h.holder = writebacktest.NewHolder()
		h.brokers.PrependWatchReactor("brokerclusters", writebacktest.WatchReactor(h.bcTrack, h.holder.Wrap))
	}
	if opts.delay != nil {
		h.brokers.PrependWatchReactor("brokerclusters", writebacktest.WatchReactor(h.bcTrack, func(w watch.Interface) watch.Interface {
			return writebacktest.NewDelayingWatch(w, opts.delay, nil)
		}))
	}
	h.sim = admintest.NewServer(admintest.Options{Clock: h.simClock, DrainTime: opts.drainTime})
	h.cluster = h.sim.Cluster(testNamespace, testName)

	c, err := NewController(Config{
		KubeClient:           h.kube,
		BrokerClient:         h.brokers,
		Namespaces:           []string{testNamespace},
		AdminAddressTemplate: h.sim.AddressTemplate(),
		AdminTimeout:         5 * time.Second,
		ReadStrategy:         opts.strategy,
		Guards:               opts.guards,
		Recorder:             h.recorder,
		Registerer:           h.registry,
		Clock:                h.clock,
		DrainPollInterval:    pollInterval,
		ReadHook:             h.countStaleRead,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.c, h.nc = c, c.caches[testNamespace]
	signal := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { h.signal() },
		UpdateFunc: func(_, _ interface{}) { h.signal() },
		DeleteFunc: func(interface{}) { h.signal() },
	}
	for _, inf := range []cache.SharedIndexInformer{h.nc.brokerClusterInformer, h.nc.statefulSetInformer, h.nc.serviceInformer, h.nc.pdbInformer, h.nc.podInformer} {
		if _, err := inf.AddEventHandler(signal); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		c.queue.ShutDown()
		c.shutdownInformers()
		h.sim.Close()
	})
	return h
}

func (h *harness) signal() {
	select {
	case h.informed <- struct{}{}:
	default:
	}
}

// resourceVersionPrecondition makes the fake refuse a merge patch whose metadata.resourceVersion
// is not the stored one, as the apiserver does; the fake itself ignores it.
func resourceVersionPrecondition(tracker k8stesting.ObjectTracker) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch, ok := action.(k8stesting.PatchActionImpl)
		if !ok || patch.GetPatchType() != types.MergePatchType {
			return false, nil, nil
		}
		var body struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(patch.GetPatch(), &body); err != nil || body.Metadata.ResourceVersion == "" {
			return false, nil, nil
		}
		stored, err := tracker.Get(patch.GetResource(), patch.GetNamespace(), patch.GetName())
		if err != nil {
			return false, nil, nil
		}
		m, _ := meta.Accessor(stored)
		if m.GetResourceVersion() != body.Metadata.ResourceVersion {
			return true, nil, apierrors.NewConflict(patch.GetResource().GroupResource(), patch.GetName(),
				fmt.Errorf("the object has been modified: resourceVersion %s, precondition %s", m.GetResourceVersion(), body.Metadata.ResourceVersion))
		}
		return false, nil, nil
	}
}

// countStaleRead is the controller's ReadHook: a BrokerCluster read older than the stored
// object is stale (in these tests only the controller writes while it runs).
func (h *harness) countStaleRead(resource, ns, name, rv string) {
	if resource != "brokerclusters" || rv == "" {
		return
	}
	stored, err := h.bcTrack.Get(brokerClustersGVR, ns, name)
	if err != nil {
		return
	}
	m, _ := meta.Accessor(stored)
	if cmp, err := resourceversion.CompareResourceVersion(rv, m.GetResourceVersion()); err == nil && cmp < 0 {
		h.staleReads++
	}
}

// await blocks until cond holds, checking again after every informer event. The timeout only
// turns a hang into a failure.
func (h *harness) await(what string, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, 20*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-h.informed:
		case <-ctx.Done():
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// newBrokerCluster is a valid BrokerCluster with the given replicas.
func newBrokerCluster(replicas int32) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: testName, Namespace: testNamespace, Generation: 1},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas: replicas,
			Image:    "redpanda:v25.1.1",
			Storage:  v1alpha1.StorageSpec{Size: resource.MustParse("10Gi")},
			AdminAPI: v1alpha1.AdminAPISpec{Port: 9644},
		},
	}
}

// create creates the BrokerCluster and lets the informer see it.
func (h *harness) create(bc *v1alpha1.BrokerCluster) {
	h.t.Helper()
	if _, err := h.brokers.BrokersV1alpha1().BrokerClusters(bc.Namespace).Create(h.ctx, bc, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	h.syncInformers()
}

// editSpec changes the BrokerCluster's spec as a user would, and lets the informer see it.
func (h *harness) editSpec(edit func(*v1alpha1.BrokerClusterSpec)) {
	h.t.Helper()
	bc := h.stored()
	edit(&bc.Spec)
	bc.Generation++
	if _, err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Update(h.ctx, bc, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	h.syncInformers()
}

// stored is the BrokerCluster as the apiserver holds it.
func (h *harness) stored() *v1alpha1.BrokerCluster {
	h.t.Helper()
	bc, err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Get(h.ctx, testName, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return bc
}

// statefulSet is the StatefulSet as the apiserver holds it, nil if absent.
func (h *harness) statefulSet() *appsv1.StatefulSet {
	h.t.Helper()
	sts, err := h.kube.AppsV1().StatefulSets(testNamespace).Get(h.ctx, testName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return sts
}

// pods lists the cluster's pods as the apiserver holds them.
func (h *harness) pods() []corev1.Pod {
	h.t.Helper()
	list, err := h.kube.CoreV1().Pods(testNamespace).List(h.ctx, metav1.ListOptions{LabelSelector: LabelInstance + "=" + testName})
	if err != nil {
		h.t.Fatal(err)
	}
	return list.Items
}

// playStatefulSet does what the StatefulSet controller and the kubelet would: one Running,
// Ready pod per ordinal below the StatefulSet's replicas, none above. It tells the simulator
// about each pod that started (Join) or went for good (Leave), as pod events would. It does not
// use Cluster.SyncPods, which joins every listed pod again: a pod still running a broker whose
// decommission has finished would come back as a new broker, which a real broker does not.
func (h *harness) playStatefulSet() {
	h.t.Helper()
	if err := playStatefulSet(h.ctx, h.kube, testName, h.cluster); err != nil {
		h.t.Fatal(err)
	}
}

// playStatefulSet plays the StatefulSet controller and kubelet for one cluster; see
// harness.playStatefulSet. It returns errors rather than failing, so it can run off the test's
// goroutine.
func playStatefulSet(ctx context.Context, kube *kubefake.Clientset, name string, cluster *admintest.Cluster) error {
	var replicas int32
	var template corev1.PodTemplateSpec
	sts, err := kube.AppsV1().StatefulSets(testNamespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		replicas, template = *sts.Spec.Replicas, sts.Spec.Template
	case !apierrors.IsNotFound(err):
		return err
	}
	pods, err := kube.CoreV1().Pods(testNamespace).List(ctx, metav1.ListOptions{LabelSelector: LabelInstance + "=" + name})
	if err != nil {
		return err
	}
	have := map[int]bool{}
	for _, p := range pods.Items {
		ordinal, _ := podOrdinal(&p, name)
		if ordinal >= int(replicas) {
			if err := kube.CoreV1().Pods(testNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
				return err
			}
			cluster.Leave(ordinal)
			continue
		}
		have[ordinal] = true
	}
	for ordinal := range int(replicas) {
		if have[ordinal] {
			continue
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: name + "-" + strconv.Itoa(ordinal), Namespace: testNamespace,
				Labels: template.Labels, Annotations: template.Annotations,
			},
			Spec: template.Spec,
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue},
			}},
		}
		if _, err := kube.CoreV1().Pods(testNamespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return err
		}
		cluster.Join(ordinal)
	}
	return nil
}

// syncInformers waits until every informer holds what the apiserver holds. BrokerCluster
// events held back by the holder are released first, unless the test is holding them.
func (h *harness) syncInformers() {
	h.t.Helper()
	h.syncKubeInformers()
	if h.holding {
		return
	}
	var want string
	if bc, err := h.bcTrack.Get(brokerClustersGVR, testNamespace, testName); err == nil {
		m, _ := meta.Accessor(bc)
		want = m.GetResourceVersion()
	}
	indexer := h.nc.brokerClusterInformer.GetIndexer()
	caughtUp := func() bool {
		obj, exists, _ := indexer.GetByKey(testKey)
		if want == "" {
			return !exists
		}
		return exists && obj.(metav1.Object).GetResourceVersion() == want
	}
	if h.holder == nil {
		h.await("the BrokerCluster informer", caughtUp)
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, 20*time.Second)
	defer cancel()
	for {
		// Count before releasing: whatever arrives later makes the count grow past it, and
		// whatever was held already is released and reaches the informer.
		pending := h.holder.Pending()
		h.holder.ReleaseAll()
		if caughtUp() {
			return
		}
		// The event is on its way into the holder, or out of it to the informer.
		held := make(chan struct{})
		waitCtx, stop := context.WithCancel(ctx)
		go func() {
			if h.holder.AwaitPending(waitCtx, pending+1) == nil {
				close(held)
			}
		}()
		select {
		case <-held:
		case <-h.informed:
		case <-ctx.Done():
			stop()
			h.t.Fatal("timed out releasing BrokerCluster events")
		}
		stop()
	}
}

// syncKubeInformers waits until the StatefulSet, Service, PDB and Pod informers hold exactly
// what the apiserver holds.
func (h *harness) syncKubeInformers() {
	h.t.Helper()
	type source struct {
		informer cache.SharedIndexInformer
		list     func() ([]metav1.Object, error)
	}
	objects := func(list runtime.Object, err error) ([]metav1.Object, error) {
		if err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		out := make([]metav1.Object, 0, len(items))
		for _, it := range items {
			m, _ := meta.Accessor(it)
			out = append(out, m)
		}
		return out, err
	}
	lo := metav1.ListOptions{}
	sources := []source{
		{h.nc.statefulSetInformer, func() ([]metav1.Object, error) {
			return objects(h.kube.AppsV1().StatefulSets(testNamespace).List(h.ctx, lo))
		}},
		{h.nc.serviceInformer, func() ([]metav1.Object, error) {
			return objects(h.kube.CoreV1().Services(testNamespace).List(h.ctx, lo))
		}},
		{h.nc.pdbInformer, func() ([]metav1.Object, error) {
			return objects(h.kube.PolicyV1().PodDisruptionBudgets(testNamespace).List(h.ctx, lo))
		}},
		{h.nc.podInformer, func() ([]metav1.Object, error) { return objects(h.kube.CoreV1().Pods(testNamespace).List(h.ctx, lo)) }},
	}
	for _, s := range sources {
		want, err := s.list()
		if err != nil {
			h.t.Fatal(err)
		}
		h.await("informer "+fmt.Sprintf("%T", s.informer), func() bool {
			keys := s.informer.GetIndexer().ListKeys()
			if len(keys) != len(want) {
				return false
			}
			for _, w := range want {
				obj, ok, _ := s.informer.GetIndexer().GetByKey(w.GetNamespace() + "/" + w.GetName())
				if !ok || obj.(metav1.Object).GetResourceVersion() != w.GetResourceVersion() {
					return false
				}
			}
			return true
		})
	}
}

// reconcile runs one reconcile of the test cluster, then plays the StatefulSet and lets the
// informers catch up (all but the BrokerCluster's, while the test holds it).
func (h *harness) reconcile() (result, error) {
	h.t.Helper()
	res, err := h.c.sync(h.ctx, testKey)
	h.playStatefulSet()
	h.syncInformers()
	return res, err
}

// bringUp creates a cluster of n brokers and reconciles until it is steady: every pod runs,
// its broker ID is recorded, and the cluster is Ready.
func (h *harness) bringUp(n int32) {
	h.t.Helper()
	h.create(newBrokerCluster(n))
	for range 5 {
		if _, err := h.reconcile(); err != nil {
			h.t.Fatalf("bring up: %v", err)
		}
	}
	bc := h.stored()
	if bc.Status.CurrentReplicas != n || !meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady) {
		h.t.Fatalf("bring up: status %+v, want %d brokers and Ready", bc.Status, n)
	}
	for _, p := range h.pods() {
		if _, ok := podNodeID(&p); !ok {
			h.t.Fatalf("bring up: pod %s has no broker ID annotation", p.Name)
		}
	}
}

// settle reconciles until the cluster is steady at spec.replicas, at most max times.
func (h *harness) settle(max int) {
	h.t.Helper()
	for range max {
		if _, err := h.reconcile(); err != nil {
			h.t.Logf("reconcile: %v", err)
		}
		bc := h.stored()
		if bc.Status.CurrentReplicas == bc.Spec.Replicas && bc.Status.DecommissioningBroker == nil &&
			int32(len(h.pods())) == bc.Spec.Replicas && meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady) {
			return
		}
	}
	h.t.Fatalf("not steady after %d reconciles: status %+v", max, h.stored().Status)
}

// decommissionCalls lists the node IDs of the PUT decommission calls the simulator received.
func (h *harness) decommissionCalls() []int {
	var ids []int
	for _, c := range h.cluster.Calls() {
		if c.Method == "PUT" && c.NodeID >= 0 && len(c.Path) > 0 && c.Path == fmt.Sprintf("/v1/brokers/%d/decommission", c.NodeID) {
			ids = append(ids, c.NodeID)
		}
	}
	return ids
}

func (h *harness) callsTo(method, suffix string) int {
	n := 0
	for _, c := range h.cluster.Calls() {
		if c.Method == method && len(c.Path) >= len(suffix) && c.Path[len(c.Path)-len(suffix):] == suffix {
			n++
		}
	}
	return n
}

// counter reads one value of a counter vector from the registry.
func (h *harness) counter(name, label, value string) float64 {
	h.t.Helper()
	families, err := h.registry.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == label && l.GetValue() == value }) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// events drains the recorded events.
func (h *harness) events() []string {
	var out []string
	for {
		select {
		case e := <-h.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// nodeIDs maps ordinal to broker ID as the simulator sees it now.
func (h *harness) nodeIDs() map[int]int {
	out := map[int]int{}
	for _, b := range h.cluster.Brokers() {
		if b.PodRunning {
			out[b.Ordinal] = b.NodeID
		}
	}
	return out
}
