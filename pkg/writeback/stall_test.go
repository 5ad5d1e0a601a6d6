package writeback

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"
)

// A watch that stalls for longer than the TTL: the overlay keeps serving the write (dropping it
// would roll the read back to the informer's stale copy), counts it in
// writeback_stalled_entries and logs an error; once the informer catches up, the entry leaves
// by progress, the gauge falls back and the recovery is logged.
func TestStalledWatchKeepsServingAndSaysSo(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(1, 10))
	clock := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	logger, logs := capturingLogger(0)
	o := NewOverlay("configmaps", store, Options{Clock: clock, TTL: time.Minute, Metrics: NewMetrics(prometheus.NewRegistry()), Logger: logger})
	stalled := o.metrics.stalled

	o.Record(configMap(1, 20))
	clock.Step(time.Minute - time.Second)
	if n := o.Len(); n != 1 || valueOf(t, stalled) != 0 {
		t.Fatalf("before the TTL: %d entries, stalled gauge %v; want 1 and 0", n, valueOf(t, stalled))
	}
	clock.Step(2 * time.Second)
	o.Record(configMap(2, 21)) // any write looks at the clock
	if got, ok, _ := o.GetByKey("ns/cm-00001"); !ok || got.(interface{ GetResourceVersion() string }).GetResourceVersion() != "20" {
		t.Fatalf("a stalled entry must still be served; got %v", got)
	}
	if got := valueOf(t, stalled); got != 1 {
		t.Fatalf("stalled gauge %v, want 1", got)
	}
	if got := logs(); !strings.Contains(got, "may be stalled") || !strings.Contains(got, `"key"="ns/cm-00001"`) {
		t.Fatalf("want the stall logged with its key, got:\n%s", got)
	}
	if n := o.Len(); n != 2 {
		t.Fatalf("entries %d, want 2: nothing is dropped for its age", n)
	}

	// The watch resumes: one event past both writes.
	next := configMap(3, 30)
	_ = store.Add(next)
	o.observed(next, false)
	if n := o.Len(); n != 0 || valueOf(t, stalled) != 0 {
		t.Fatalf("after the informer caught up: %d entries, stalled gauge %v; want 0 and 0", n, valueOf(t, stalled))
	}
	if got := logs(); !strings.Contains(got, "caught up with a write after a stall") {
		t.Fatalf("want the recovery logged, got:\n%s", got)
	}
	if got := valueOf(t, o.metrics.evictions[EvictObserved]); got != 2 {
		t.Fatalf("observed evictions %v, want 2", got)
	}
}

// A stalled entry replaced by a newer write of the same key is no longer stalled.
func TestStalledEntryReplacedByNewerWrite(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(1, 10))
	clock := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	o := NewOverlay("configmaps", store, Options{Clock: clock, TTL: time.Minute, Metrics: NewMetrics(prometheus.NewRegistry())})
	o.Record(configMap(1, 20))
	clock.Step(2 * time.Minute)
	o.Sweep()
	if got := valueOf(t, o.metrics.stalled); got != 1 {
		t.Fatalf("stalled gauge %v, want 1", got)
	}
	o.Record(configMap(1, 21))
	if got := valueOf(t, o.metrics.stalled); got != 0 {
		t.Fatalf("stalled gauge %v after a newer write replaced the entry, want 0", got)
	}
}
