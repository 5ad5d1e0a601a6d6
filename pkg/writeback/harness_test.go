package writeback

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

const testNamespace = "ns"

type configMapClient = Client[*corev1.ConfigMap, *corev1.ConfigMapList, *applycorev1.ConfigMapApplyConfiguration]

// harness is a fake clientset whose ConfigMap watch is held back by a Holder, a real
// SharedIndexInformer, an overlay over its indexer, a lister on the overlay, and a capturing
// client.
type harness struct {
	t        *testing.T
	ctx      context.Context
	cs       *fake.Clientset
	holder   *writebacktest.Holder
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
	cm := obj.(*corev1.ConfigMap)
	if c, ok := cm.Labels["color"]; ok {
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
		cs:       fake.NewClientset(),
		holder:   writebacktest.NewHolder(),
		clock:    testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		registry: prometheus.NewRegistry(),
		observed: make(chan runtime.Object, 100000),
	}
	tracker := writebacktest.StampServerFields(&h.cs.Fake, h.cs.Tracker())
	h.cs.PrependWatchReactor("configmaps", writebacktest.WatchReactor(tracker, h.holder.Wrap))

	h.informer = informers.NewSharedInformerFactory(h.cs, 0).Core().V1().ConfigMaps().Informer()
	if err := h.informer.AddIndexers(cache.Indexers{byColor: colorIndex}); err != nil {
		t.Fatal(err)
	}
	h.overlay = NewOverlay("configmaps", h.informer.GetIndexer(), Options{
		Clock:   h.clock,
		Metrics: NewMetrics(h.registry),
	})
	h.overlay.observedHook = func(obj interface{}) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		h.observed <- obj.(runtime.Object)
	}
	if _, err := h.overlay.Observe(h.informer); err != nil {
		t.Fatal(err)
	}
	h.lister = corelisters.NewConfigMapLister(h.overlay)
	h.client = Wrap(h.cs.CoreV1().ConfigMaps(testNamespace), testNamespace, h.overlay)
	h.external = Wrap(h.cs.CoreV1().ConfigMaps(testNamespace), testNamespace, NewOverlay("unused", cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil), Options{}))

	go h.informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), h.informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
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

func (h *harness) create(c *configMapClient, name string, labels map[string]string) *corev1.ConfigMap {
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

func (h *harness) update(c *configMapClient, cm *corev1.ConfigMap, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
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
	return obj.(*corev1.ConfigMap)
}

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
