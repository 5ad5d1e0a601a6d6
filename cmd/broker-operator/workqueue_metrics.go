package main

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// client-go takes one workqueue metrics provider per process, and only the first one set counts.
// So the collectors are made once and registered in each registry that asks for them.
var (
	queueMetricsOnce sync.Once
	queueMetrics     *workqueueMetrics
)

// registerWorkqueueMetrics installs the process-wide provider (once) and adds its collectors to reg.
func registerWorkqueueMetrics(reg prometheus.Registerer) {
	queueMetricsOnce.Do(func() {
		queueMetrics = newWorkqueueMetrics()
		workqueue.SetProvider(queueMetrics)
	})
	reg.MustRegister(queueMetrics.collectors()...)
}

// workqueueMetrics exports client-go's workqueue metrics (depth, adds, latency, work duration,
// retries) through Prometheus, labelled by queue name, in the names kube-controller-manager uses.
type workqueueMetrics struct {
	depth                   *prometheus.GaugeVec
	adds                    *prometheus.CounterVec
	latency                 *prometheus.HistogramVec
	workDuration            *prometheus.HistogramVec
	unfinishedWorkSeconds   *prometheus.GaugeVec
	longestRunningProcessor *prometheus.GaugeVec
	retries                 *prometheus.CounterVec
}

var _ workqueue.MetricsProvider = (*workqueueMetrics)(nil)

func newWorkqueueMetrics() *workqueueMetrics {
	const subsystem = "workqueue"
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12)
	m := &workqueueMetrics{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "depth",
			Help: "Current depth of the workqueue."}, []string{"name"}),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: "adds_total",
			Help: "Adds handled by the workqueue."}, []string{"name"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: subsystem, Name: "queue_duration_seconds",
			Help: "Seconds an item stays in the workqueue before it is requested.", Buckets: buckets}, []string{"name"}),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: subsystem, Name: "work_duration_seconds",
			Help: "Seconds processing an item from the workqueue takes.", Buckets: buckets}, []string{"name"}),
		unfinishedWorkSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "unfinished_work_seconds",
			Help: "Seconds of work in progress not yet observed by work_duration; large values suggest stuck workers."}, []string{"name"}),
		longestRunningProcessor: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "longest_running_processor_seconds",
			Help: "Seconds the longest running processor of the workqueue has been running."}, []string{"name"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: "retries_total",
			Help: "Retries handled by the workqueue."}, []string{"name"}),
	}
	return m
}

func (m *workqueueMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.depth, m.adds, m.latency, m.workDuration, m.unfinishedWorkSeconds, m.longestRunningProcessor, m.retries}
}

func (m *workqueueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return m.depth.WithLabelValues(name)
}

func (m *workqueueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return m.adds.WithLabelValues(name)
}

func (m *workqueueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return m.latency.WithLabelValues(name)
}

func (m *workqueueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return m.workDuration.WithLabelValues(name)
}

func (m *workqueueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.unfinishedWorkSeconds.WithLabelValues(name)
}

func (m *workqueueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.longestRunningProcessor.WithLabelValues(name)
}

func (m *workqueueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return m.retries.WithLabelValues(name)
}
