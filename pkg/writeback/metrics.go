package writeback

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/broker-operator/broker-operator/internal/promreg"
)

// Eviction reasons, the values of the "reason" label of writeback_evictions_total.
const (
	// EvictObserved: the informer delivered the written resourceVersion or a newer one.
	EvictObserved = "observed"
	// EvictDeleted: the informer delivered the delete of the object.
	EvictDeleted = "deleted"
	// EvictRecreated: the informer delivered an object with a different UID than a tombstone's.
	EvictRecreated = "recreated"
	// EvictReset: the informer's resourceVersion went back (etcd was restored), so every
	// entry belonged to a history that no longer exists.
	EvictReset = "reset"
)

// Metrics are the write-back store's Prometheus metrics. One set serves every overlay; each
// overlay fills in its own "resource" label.
type Metrics struct {
	servedFromOverlay *prometheus.CounterVec
	entries           *prometheus.GaugeVec
	observationLag    *prometheus.HistogramVec
	evictions         *prometheus.CounterVec
	stalled           *prometheus.GaugeVec
}

// NewMetrics creates the metrics and registers them on reg (nil: not registered). Calling it
// twice with one registry returns metrics backed by the collectors registered first; any other
// registration failure panics, as prometheus.MustRegister does.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		servedFromOverlay: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "writeback",
			Name:      "reads_served_from_overlay_total",
			Help:      "Reads answered with the operator's own write because the informer had not caught up yet; each one is a stale read prevented.",
		}, []string{"resource"}),
		entries: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "writeback",
			Name:      "overlay_entries",
			Help:      "Writes and deletes held in the overlay until the informer observes them.",
		}, []string{"resource"}),
		observationLag: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "writeback",
			Name:      "observation_lag_seconds",
			Help:      "Time from recording a write to the informer delivering it.",
			Buckets:   prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"resource"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "writeback",
			Name:      "evictions_total",
			Help:      "Overlay entries dropped, by reason (observed, deleted, recreated, reset).",
		}, []string{"resource", "reason"}),
		stalled: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "writeback",
			Name:      "stalled_entries",
			Help:      "Overlay entries the informer has not caught up with within the TTL: its watch is stalled. They are still served.",
		}, []string{"resource"}),
	}
	if reg != nil {
		m.servedFromOverlay = promreg.Register(reg, m.servedFromOverlay)
		m.entries = promreg.Register(reg, m.entries)
		m.observationLag = promreg.Register(reg, m.observationLag)
		m.evictions = promreg.Register(reg, m.evictions)
		m.stalled = promreg.Register(reg, m.stalled)
	}
	return m
}

// resourceMetrics are one overlay's children, resolved once so that the read path only does
// atomic increments.
type resourceMetrics struct {
	served    prometheus.Counter
	entries   prometheus.Gauge
	lag       prometheus.Observer
	evictions map[string]prometheus.Counter
	stalled   prometheus.Gauge
}

func (m *Metrics) forResource(resource string) *resourceMetrics {
	if m == nil {
		return nil
	}
	rm := &resourceMetrics{
		served:    m.servedFromOverlay.WithLabelValues(resource),
		entries:   m.entries.WithLabelValues(resource),
		lag:       m.observationLag.WithLabelValues(resource),
		evictions: map[string]prometheus.Counter{},
		stalled:   m.stalled.WithLabelValues(resource),
	}
	for _, reason := range []string{EvictObserved, EvictDeleted, EvictRecreated, EvictReset} {
		rm.evictions[reason] = m.evictions.WithLabelValues(resource, reason)
	}
	return rm
}
