package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
	brokerscheme "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/scheme"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

const (
	testNamespace = "team-a"
	testName      = "redpanda"
	testKey       = testNamespace + "/" + testName
	pollInterval  = 30 * time.Second
)

// noGuards turns both guards off, as only experiments do.
var noGuards = Guards{SkipAdminCheck: true, SkipPrecondition: true}

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
	// version is the Redpanda version the simulated brokers run; empty: the simulator's default.
	version string
	// auth makes the simulator require basic auth, and bringUp name the Secret that holds it
	// (testAuthSecret, created by newHarness) in spec.adminAPI.auth.
	auth bool
	// pools are the named pools the simulator serves, declared before the controller's
	// address template is rendered (pools_test.go).
	pools []string
	// kubeObjects are in the apiserver before the controller starts, made by someone else.
	kubeObjects []runtime.Object
}

// The superuser of harnesses with auth.
const (
	testAuthSecret = "admin-superuser"
	testUsername   = "operator"
	testPassword   = "pw-7f3a9c-do-not-log"
)

// harness is a controller over fake clientsets with real informers, a broker simulator, and a
// small stand-in for the StatefulSet controller and kubelet (playStatefulSet). Tests drive
// reconciles one at a time.
type harness struct {
	t       *testing.T
	ctx     context.Context
	kube    *kubefake.Clientset
	brokers *brokerfake.Clientset
	// dynamic serves cert-manager's Certificates (certificates_test.go).
	dynamic *dynamicfake.FakeDynamicClient
	// kubeTrack and bcTrack hold what kube and brokers serve (servePlain) and stamp what they
	// store; use them, not the clientsets' Tracker(), to change objects behind the
	// controller's back.
	kubeTrack k8stesting.ObjectTracker
	bcTrack   k8stesting.ObjectTracker
	// kubeWatches and bcWatches let newHarness wait until every informer's watch is open: the
	// fake clientset loses a delete made between an informer's List and its Watch
	// (kubernetes/kubernetes#141528).
	kubeWatches, bcWatches *writebacktest.Watches
	holder                 *writebacktest.Holder
	holding                bool
	sim                    *admintest.Server
	simClock               *admintest.FakeClock
	cluster                *admintest.Cluster
	clock                  *testingclock.FakeClock
	registry               *prometheus.Registry
	recorder               *record.FakeRecorder
	c                      *Controller
	nc                     *namespaceCache
	// informed gets a value after any informer event (the indexer is updated by then).
	informed chan struct{}
	// staleReads counts BrokerCluster reads older than what the apiserver held at the time.
	staleReads int
	// onReconcileActions, when set, gets the API requests each reconcile made.
	onReconcileActions func([]k8stesting.Action)
	// auth: bringUp names testAuthSecret in spec.adminAPI.auth.
	auth bool
	// badImage, when set, is an image no pod can pull (failPulls).
	badImage string
	// stop ends ctx, which stops the informers, as the end of Run does.
	stop context.CancelFunc
}

func newHarness(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{
		t:       t,
		ctx:     ctx,
		stop:    cancel,
		kube:    kubefake.NewClientset(),
		brokers: brokerfake.NewClientset(),
		dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{objects.CertificateGVR: "CertificateList"}),
		simClock: admintest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		clock:    testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		registry: prometheus.NewRegistry(),
		recorder: record.NewFakeRecorder(10000),
		informed: make(chan struct{}, 1),
	}
	h.kubeTrack = servePlain(&h.kube.Fake, kubescheme.Scheme, kubescheme.Codecs.UniversalDecoder())
	h.bcTrack = servePlain(&h.brokers.Fake, brokerscheme.Scheme, brokerscheme.Codecs.UniversalDecoder())
	// After servePlain: the last watch reactor prepended is the one that answers.
	h.kubeWatches = writebacktest.RecordWatches(&h.kube.Fake, h.kubeTrack)
	h.bcWatches = writebacktest.RecordWatches(&h.brokers.Fake, h.bcTrack)
	h.kube.PrependWatchReactor("configmaps", h.kubeWatches.Reactor(labelSelected(writebacktest.WatchReactor(h.kubeTrack, func(w watch.Interface) watch.Interface { return w }))))
	h.brokers.PrependReactor("patch", "brokerclusters", resourceVersionPrecondition(h.bcTrack))
	if opts.hold {
		h.holder = writebacktest.NewHolder()
		h.brokers.PrependWatchReactor("brokerclusters", h.bcWatches.Reactor(writebacktest.WatchReactor(h.bcTrack, h.holder.Wrap)))
	}
	if opts.delay != nil {
		h.brokers.PrependWatchReactor("brokerclusters", h.bcWatches.Reactor(writebacktest.WatchReactor(h.bcTrack, func(w watch.Interface) watch.Interface {
			return writebacktest.NewDelayingWatch(w, opts.delay, nil)
		})))
	}
	simOpts := admintest.Options{Clock: h.simClock, DrainTime: opts.drainTime, Version: opts.version}
	if opts.auth {
		h.auth = true
		simOpts.Username, simOpts.Password = testUsername, testPassword
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: testAuthSecret, Namespace: testNamespace},
			Type:       corev1.SecretTypeBasicAuth,
			Data:       map[string][]byte{"username": []byte(testUsername), "password": []byte(testPassword)},
		}
		if err := h.kubeTrack.Add(secret); err != nil { // not an action of the controller's
			t.Fatal(err)
		}
	}
	for _, obj := range opts.kubeObjects {
		if err := h.kubeTrack.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	h.sim = admintest.NewServer(simOpts)
	h.cluster = h.sim.Cluster(testNamespace, testName)
	for _, p := range opts.pools {
		h.cluster.Pool(p)
	}

	c, err := NewController(Config{
		KubeClient:           h.kube,
		BrokerClient:         h.brokers,
		DynamicClient:        h.dynamic,
		Namespaces:           []string{testNamespace},
		AdminAddressTemplate: h.sim.AddressTemplateFor(h.cluster),
		AdminTimeout:         5 * time.Second,
		Guards:               opts.guards,
		Recorder:             h.recorder,
		Registerer:           h.registry,
		Clock:                h.clock,
		DrainPollInterval:    pollInterval,
		ReadHook:             h.countStaleRead,
	}.WithReadStrategy(opts.strategy))
	if err != nil {
		t.Fatal(err)
	}
	h.c, h.nc = c, c.caches[testNamespace]
	signal := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { h.signal() },
		UpdateFunc: func(_, _ interface{}) { h.signal() },
		DeleteFunc: func(interface{}) { h.signal() },
	}
	for _, inf := range []cache.SharedIndexInformer{h.nc.brokerClusterInformer, h.nc.statefulSetInformer, h.nc.serviceInformer, h.nc.pdbInformer, h.nc.podInformer, h.nc.serviceAccountInformer, h.nc.configMapInformer} {
		if _, err := inf.AddEventHandler(signal); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.kubeWatches.Await(ctx, appsv1.SchemeGroupVersion.WithResource("statefulsets"), corev1.SchemeGroupVersion.WithResource("services"),
		policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"), corev1.SchemeGroupVersion.WithResource("pods"),
		corev1.SchemeGroupVersion.WithResource("serviceaccounts"), corev1.SchemeGroupVersion.WithResource("configmaps")); err != nil {
		t.Fatal(err)
	}
	if err := h.bcWatches.Await(ctx, v1alpha1.SchemeGroupVersion.WithResource("brokerclusters")); err != nil {
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

// labelSelected makes a watch send only the objects its label selector selects, as the
// apiserver does and the fake's tracker does not: with watch-list, the informer's initial
// objects come through the watch, and a ConfigMap without the managed-by label would reach the
// controller's ConfigMap informer. Bookmarks pass.
func labelSelected(reaction k8stesting.WatchReactionFunc) k8stesting.WatchReactionFunc {
	return func(action k8stesting.Action) (bool, watch.Interface, error) {
		handled, w, err := reaction(action)
		wa, ok := action.(k8stesting.WatchActionImpl)
		if !handled || err != nil || !ok {
			return handled, w, err
		}
		selector, err := labels.Parse(wa.ListOptions.LabelSelector)
		if err != nil {
			return true, nil, err
		}
		return true, watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
			m, err := meta.Accessor(e.Object)
			return e, e.Type == watch.Bookmark || e.Type == watch.Error || (err == nil && selector.Matches(labels.Set(m.GetLabels())))
		}), nil
	}
}

// servePlain makes f serve from a plain ObjectTracker, stamped as an apiserver would
// (writebacktest.StampServerFields), and returns that tracker. NewClientset's own tracker
// manages fields, which nothing here reads (the controller never applies), and builds a REST
// mapper on every request: most of a reconcile's cost in these tests.
func servePlain(f *k8stesting.Fake, scheme *runtime.Scheme, decoder runtime.Decoder) k8stesting.ObjectTracker {
	plain := k8stesting.NewObjectTracker(scheme, decoder)
	f.PrependReactor("*", "*", k8stesting.ObjectReaction(plain))
	return writebacktest.StampServerFields(f, plain)
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

// reconcile runs one reconcile of the test cluster, then plays the StatefulSet and lets the
// informers catch up (all but the BrokerCluster's, while the test holds it).
func (h *harness) reconcile() (result, error) {
	h.t.Helper()
	kubeBefore, brokersBefore, dynamicBefore := len(h.kube.Actions()), len(h.brokers.Actions()), len(h.dynamic.Actions())
	res, err := h.c.sync(h.ctx, testKey)
	if h.onReconcileActions != nil {
		actions := append(h.kube.Actions()[kubeBefore:], h.brokers.Actions()[brokersBefore:]...)
		h.onReconcileActions(append(actions, h.dynamic.Actions()[dynamicBefore:]...))
	}
	h.playStatefulSet()
	h.syncInformers()
	return res, err
}

// bringUp creates a cluster of n brokers and reconciles until it is steady: every pod runs,
// its broker ID is recorded, and the cluster is Ready.
func (h *harness) bringUp(n int32) {
	h.t.Helper()
	bc := newBrokerCluster(n)
	if h.auth {
		bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: testAuthSecret}
	}
	h.bringUpCluster(bc)
}

// bringUpCluster creates bc and reconciles until it is steady, as bringUp does.
func (h *harness) bringUpCluster(bc *v1alpha1.BrokerCluster) {
	h.t.Helper()
	n := bc.Spec.Replicas
	h.create(bc)
	for range 5 {
		if _, err := h.reconcile(); err != nil {
			h.t.Fatalf("bring up: %v", err)
		}
	}
	bc = h.stored()
	if bc.Status.CurrentReplicas != n || !meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady) {
		h.t.Fatalf("bring up: status %+v, want %d brokers and Ready", bc.Status, n)
	}
	for _, p := range h.pods() {
		if _, ok := brokerpod.NodeID(&p); !ok {
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

// countEvents drains the recorded events and counts those that begin with prefix and contain
// part; it returns them all too, for the failure message.
func (h *harness) countEvents(prefix, part string) (int, []string) {
	all := h.events()
	return countPrefixed(all, prefix, part), all
}

// countPrefixed counts the events that begin with prefix and contain part.
func countPrefixed(events []string, prefix, part string) int {
	n := 0
	for _, e := range events {
		if strings.HasPrefix(e, prefix) && strings.Contains(e, part) {
			n++
		}
	}
	return n
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
