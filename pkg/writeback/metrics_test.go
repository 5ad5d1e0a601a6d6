package writeback

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

func TestMetricsCountServedReadsEntriesLagAndEvictions(t *testing.T) {
	h := newHarness(t)
	m := h.overlay.metrics
	cm := h.create(h.client, "a", nil)
	h.awaitHeld(1)
	if got := valueOf(t, m.entries); got != 1 {
		t.Fatalf("entries gauge %v, want 1", got)
	}
	h.get("a")
	_, _ = h.lister.List(labels.Everything())
	if got := valueOf(t, m.served); got != 2 {
		t.Fatalf("served-from-overlay counter %v, want 2 (one Get, one List item)", got)
	}
	h.clock.Step(3 * time.Millisecond)
	h.release(1)
	if got := valueOf(t, m.entries); got != 0 {
		t.Fatalf("entries gauge %v after catch-up, want 0", got)
	}
	if got := valueOf(t, m.evictions[EvictObserved]); got != 1 {
		t.Fatalf("observed evictions %v, want 1", got)
	}
	h.get("a")
	if got := valueOf(t, m.served); got != 2 {
		t.Fatal("a read served by the informer was counted as served from the overlay")
	}

	hist := lagHistogram(t, h.registry)
	if hist.GetSampleCount() != 1 || hist.GetSampleSum() < 0.0029 || hist.GetSampleSum() > 0.0031 {
		t.Fatalf("lag histogram count %d sum %v, want one 3ms sample", hist.GetSampleCount(), hist.GetSampleSum())
	}

	if err := h.client.Delete(h.ctx, "a", metav1DeleteOptions()); err != nil {
		t.Fatal(err)
	}
	h.catchUp(1)
	if got := valueOf(t, m.evictions[EvictDeleted]); got != 1 {
		t.Fatalf("deleted evictions %v, want 1", got)
	}
	_ = cm
}

func TestNewMetricsTwiceOnOneRegistryShares(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, b := NewMetrics(reg), NewMetrics(reg)
	a.servedFromOverlay.WithLabelValues("x").Inc()
	if got := valueOf(t, b.servedFromOverlay.WithLabelValues("x")); got != 1 {
		t.Fatal("second NewMetrics does not share the registered collectors")
	}
}

func TestObserveRejectsAnotherInformersIndexer(t *testing.T) {
	h := newHarness(t)
	o := NewOverlay("configmaps", cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil), Options{})
	if _, err := o.Observe(h.informer); err == nil {
		t.Fatal("Observe accepted an informer that does not own the overlay's indexer")
	}
	if _, err := o.Observe(nil); err == nil {
		t.Fatal("Observe accepted nil")
	}
}

func TestStoreWritesAreRefused(t *testing.T) {
	o := NewOverlay("configmaps", cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil), Options{})
	cm := &corev1.ConfigMap{}
	for name, err := range map[string]error{
		"Add": o.Add(cm), "Update": o.Update(cm), "Delete": o.Delete(cm), "Replace": o.Replace(nil, ""),
	} {
		if err != ErrReadOnly {
			t.Errorf("%s returned %v, want ErrReadOnly", name, err)
		}
	}
}

// Overlays of one resource share its gauge (one per watched namespace, say): it must report
// their sum, not whichever wrote last.
func TestEntriesGaugeSumsOverlaysOfOneResource(t *testing.T) {
	reg := prometheus.NewRegistry()
	metrics := NewMetrics(reg)
	a := NewOverlay("configmaps", cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), Options{Metrics: metrics})
	b := NewOverlay("configmaps", cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), Options{Metrics: metrics})
	a.Record(configMapAt("ns-a", "one", "10"))
	a.Record(configMapAt("ns-a", "two", "11"))
	b.Record(configMapAt("ns-b", "one", "12"))
	if got := valueOf(t, metrics.forResource("configmaps").entries); got != 3 {
		t.Fatalf("entries gauge %v, want 3 (2 in one overlay, 1 in the other)", got)
	}
}

func configMapAt(ns, name, rv string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{}
	cm.Namespace, cm.Name, cm.ResourceVersion, cm.UID = ns, name, rv, types.UID("uid-"+ns+"-"+name)
	return cm
}
