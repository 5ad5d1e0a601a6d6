package writeback

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	fakemetadata "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

const testNamespace = "ns"

type configMapClient = Client[*corev1.ConfigMap, *corev1.ConfigMapList, *applycorev1.ConfigMapApplyConfiguration]

// harness is a fake clientset whose ConfigMap watch is held back by a Holder, a real
// SharedIndexInformer, an overlay over its indexer, a lister on the overlay, and a capturing
// client. Its backend (typed unless the test runs under runContract) decides which client
// family they are; cs, client and external exist only for the typed one.
type harness struct {
	t        *testing.T
	ctx      context.Context
	backend  *backend
	cs       *fake.Clientset
	dynamic  *fakedynamic.FakeDynamicClient
	metadata *fakemetadata.FakeMetadataClient
	writer   writer // records into the overlay
	others   writer // another actor: the overlay does not see its writes
	holder   *writebacktest.Holder
	watches  writebacktest.Watches // the informer's watch, awaited before any write
	informer cache.SharedIndexInformer
	overlay  *Overlay
	lister   corelisters.ConfigMapLister
	client   *configMapClient
	external *configMapClient // writes that the overlay does not see: another actor
	clock    *testingclock.FakeClock
	registry *prometheus.Registry
	observed chan runtime.Object // every event the overlay's handler finished with
}

const byColor = "byColor"

func colorIndex(obj interface{}) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if c, ok := m.GetLabels()["color"]; ok {
		return []string{c}, nil
	}
	return nil, nil
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h := &harness{
		t:        t,
		ctx:      ctx,
		backend:  backendOf(t),
		holder:   writebacktest.NewHolder(),
		clock:    testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		registry: prometheus.NewRegistry(),
		observed: make(chan runtime.Object, 100000),
	}
	h.backend.server(h)
	if err := h.informer.AddIndexers(cache.Indexers{byColor: colorIndex}); err != nil {
		t.Fatal(err)
	}
	h.overlay = NewOverlay("configmaps", h.informer.GetIndexer(), Options{
		Clock:   h.clock,
		Metrics: NewMetrics(h.registry),
	})
	if _, err := h.overlay.observe(h.informer, func(obj interface{}) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		h.observed <- obj.(runtime.Object)
	}); err != nil {
		t.Fatal(err)
	}
	h.backend.clients(h)

	runInformer(ctx, t, h.informer, &h.watches)
	return h
}

// catchUp releases every held event and waits until the overlay's handler has handled them.
func (h *harness) catchUp(events int) {
	h.t.Helper()
	h.awaitHeld(events)
	h.release(events)
}

// awaitHeld waits until the watch holds n events.
func (h *harness) awaitHeld(n int) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	if err := h.holder.AwaitPending(ctx, n); err != nil {
		h.t.Fatalf("waiting for %d held events (have %d): %v", n, h.holder.Pending(), err)
	}
}

// release lets n held events through and waits until the overlay's handler has seen them.
func (h *harness) release(n int) {
	h.t.Helper()
	if got := h.holder.Release(n); got != n {
		h.t.Fatalf("released %d events, want %d", got, n)
	}
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for range n {
		select {
		case <-h.observed:
		case <-timeout.C:
			h.t.Fatal("the overlay's handler did not see the released events")
		}
	}
}

func (h *harness) create(c writer, name string, labels map[string]string) *corev1.ConfigMap {
	h.t.Helper()
	cm, err := c.Create(h.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Labels: labels},
		Data:       map[string]string{"v": "0"},
	}, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return cm
}

func (h *harness) update(c writer, cm *corev1.ConfigMap, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	h.t.Helper()
	cm = cm.DeepCopy()
	mutate(cm)
	out, err := c.Update(h.ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// get reads through the lister; nil means not found.
func (h *harness) get(name string) *corev1.ConfigMap {
	h.t.Helper()
	cm, err := h.lister.ConfigMaps(testNamespace).Get(name)
	if err != nil {
		return nil
	}
	return cm
}

func (h *harness) informerCopy(name string) *corev1.ConfigMap {
	obj, exists, _ := h.informer.GetIndexer().GetByKey(testNamespace + "/" + name)
	if !exists {
		return nil
	}
	return h.view(obj)
}

// view is the ConfigMap view of an object the informer or the overlay holds.
func (h *harness) view(obj interface{}) *corev1.ConfigMap { return h.backend.view(obj) }

// stored is cm as the backend's informer holds it, for Record.
func (h *harness) stored(cm *corev1.ConfigMap) runtime.Object { return h.backend.stored(cm) }

// record records cm into the overlay by hand, as the backend's objects.
func (h *harness) record(cm *corev1.ConfigMap) { h.overlay.Record(h.stored(cm)) }

func rvOf(cm *corev1.ConfigMap) string {
	if cm == nil {
		return "<none>"
	}
	return cm.ResourceVersion
}

func metav1DeleteOptions() metav1.DeleteOptions { return metav1.DeleteOptions{} }

func lagHistogram(t *testing.T, reg *prometheus.Registry) *dto.Histogram {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "writeback_observation_lag_seconds" {
			return f.GetMetric()[0].GetHistogram()
		}
	}
	t.Fatal("no lag histogram")
	return nil
}

// valueOf reads a counter's or gauge's current value.
func valueOf(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

func metav1UpdateOptions() metav1.UpdateOptions { return metav1.UpdateOptions{} }
func metav1CreateOptions() metav1.CreateOptions { return metav1.CreateOptions{} }

func newConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace},
		Data:       map[string]string{"v": "0"},
	}
}

// runInformer starts informer and waits until its store holds the initial list (its handlers
// may still be running that list's adds) and its watch is open: the fake loses a delete made
// between the informer's List and its Watch.
func runInformer(ctx context.Context, t *testing.T, informer cache.SharedIndexInformer, watches *writebacktest.Watches) {
	t.Helper()
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if err := watches.Await(ctx, configMapsGVR); err != nil {
		t.Fatal(err)
	}
}
