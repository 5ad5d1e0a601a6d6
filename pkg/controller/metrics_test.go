package controller

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// Every label value the controller can count is exported as 0 before anything happens, so that
// a dashboard's rate() starts at 0 instead of "no data".
func TestMetricsExportZerosFromTheStart(t *testing.T) {
	reg := prometheus.NewRegistry()
	newMetrics(reg)
	want := map[string]int{
		"broker_operator_reconciles_total":     3,
		"broker_operator_decisions_total":      len(step.Kinds),
		"broker_operator_guard_fired_total":    3,
		"broker_operator_admin_requests_total": len(brokers.Operations), // each with result="success"
		// A histogram without labels is one series from the start.
		"broker_operator_reconcile_duration_seconds": 1,
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range families {
		got[f.GetName()] = len(f.GetMetric())
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: %d series exported at start, want %d", name, got[name], n)
		}
	}
}

// The reconcile histogram observes each reconcile the workers run, timed by the controller's
// clock.
func TestReconcileDurationIsObservedOnTheControllersClock(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.create(newBrokerCluster(3))

	// Each read the reconcile makes takes 250ms of fake time.
	reads := 0
	countStale := h.c.cfg.ReadHook
	h.c.cfg.ReadHook = func(resource, ns, name, rv string) {
		countStale(resource, ns, name, rv)
		reads++
		h.clock.Step(250 * time.Millisecond)
	}
	h.c.queue.Add(testKey)
	if !h.c.processNextWorkItem(h.ctx, 0) {
		t.Fatal("the queue shut down")
	}
	if reads == 0 {
		t.Fatal("the reconcile read nothing; the test no longer moves the clock")
	}
	hist := h.histogram("broker_operator_reconcile_duration_seconds")
	if hist.GetSampleCount() != 1 {
		t.Fatalf("%d reconciles observed, want 1", hist.GetSampleCount())
	}
	if want := float64(reads) * 0.25; hist.GetSampleSum() != want {
		t.Fatalf("observed %vs, want %vs (%d reads of 250ms)", hist.GetSampleSum(), want, reads)
	}
	if n := h.counter("broker_operator_reconciles_total", "result", resultSuccess) + h.counter("broker_operator_reconciles_total", "result", resultRequeue); n != 1 {
		t.Fatalf("reconciles_total counted %v successful reconciles, want 1", n)
	}
}

// A scale-down's admin calls are counted by operation and result.
func TestAdminRequestsAreCounted(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.bringUp(3)
	listed := h.adminRequests("brokers", resultSuccess)
	if listed == 0 {
		t.Fatal("bringing the cluster up listed no brokers through the admin API")
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := h.adminRequests("decommission", resultSuccess), float64(len(h.decommissionCalls())); got != want || got == 0 {
		t.Fatalf("counted %v successful decommissions, the simulator received %v", got, want)
	}
	if h.adminRequests("brokers", resultSuccess) <= listed {
		t.Fatal("the scale-down's broker listings were not counted")
	}
}

func (h *harness) adminRequests(op, result string) float64 {
	h.t.Helper()
	if m := h.seriesWith("broker_operator_admin_requests_total", map[string]string{"operation": op, "result": result}); m != nil {
		return m.GetCounter().GetValue()
	}
	return 0
}

// seriesWith is the series of the metric name whose labels include want, nil when it has none.
func (h *harness) seriesWith(name string, want map[string]string) *dto.Metric {
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
			if labelsAre(m, want) {
				return m
			}
		}
	}
	return nil
}

func (h *harness) histogram(name string) *dto.Histogram {
	h.t.Helper()
	m := h.singleSeries(name)
	if m == nil {
		h.t.Fatalf("no histogram %s", name)
	}
	return m.GetHistogram()
}

// singleSeries is the one series of the metric name in the registry, or nil when it has none
// or several.
func (h *harness) singleSeries(name string) *dto.Metric {
	h.t.Helper()
	families, err := h.registry.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0]
		}
	}
	return nil
}

func labelsAre(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}
