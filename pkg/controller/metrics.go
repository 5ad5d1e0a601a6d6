package controller

import (
	"github.com/broker-operator/broker-operator/internal/promreg"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	"github.com/prometheus/client_golang/prometheus"
)

// Values of the labels of the controller's metrics.
const (
	resultSuccess = "success"
	resultRequeue = "requeue"
	resultError   = "error"

	guardAdminCheck   = "admin_check"
	guardPrecondition = "precondition"
	// guardFreshFacts: a fact an irreversible step relies on did not hold when read afresh
	// right before it (internal/step/table.go).
	guardFreshFacts = "fresh_facts"
)

// metrics are the controller's own Prometheus metrics.
type metrics struct {
	reconciles        *prometheus.CounterVec // by result
	reconcileDuration prometheus.Histogram
	decisions         *prometheus.CounterVec // by step kind
	guardFired        *prometheus.CounterVec // by guard
	adminRequests     *prometheus.CounterVec // by operation and result
	// ghostBrokers is the number of ghost brokers of each cluster (internal/brokers/ghosts.go), as of the last
	// reconcile that asked the admin API.
	ghostBrokers *prometheus.GaugeVec
	// certExpiry is each TLS listener Secret's certificate expiry (certificates.go).
	certExpiry *certExpiry
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "broker_operator", Name: "reconciles_total",
			Help: "BrokerCluster reconciles by result: success, requeue (waiting on brokers) or error.",
		}, []string{"result"}),
		reconcileDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "broker_operator", Name: "reconcile_duration_seconds",
			Help: "Time one BrokerCluster reconcile takes, admin API calls included.",
			// 1ms to about 16s: a reconcile may wait on an admin call up to --admin-timeout.
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "broker_operator", Name: "decisions_total",
			Help: "Scaling decisions by kind (the step a reconcile took).",
		}, []string{"kind"}),
		guardFired: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "broker_operator", Name: "guard_fired_total",
			Help: "Times a guard stopped a decision made on a stale read: admin_check (broker already gone or draining), precondition (Conflict on the status write) or fresh_facts (a fact an irreversible step relies on did not hold right before it).",
		}, []string{"guard"}),
		adminRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "broker_operator", Name: "admin_requests_total",
			Help: "Calls to the brokers' admin API by operation and result: success, the kind of error (e.g. already_decommissioned, unavailable, bad_response), canceled (the reconcile ended) or error.",
		}, []string{"operation", "result"}),
		ghostBrokers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "broker_operator", Name: "ghost_brokers",
			Help: "Brokers the admin API lists as active but not alive that no pod of the cluster runs, by BrokerCluster.",
		}, []string{"namespace", "name"}),
		certExpiry: newCertExpiry(),
	}
	if reg != nil {
		m.reconciles = promreg.Register(reg, m.reconciles)
		m.reconcileDuration = promreg.Register(reg, m.reconcileDuration)
		m.decisions = promreg.Register(reg, m.decisions)
		m.guardFired = promreg.Register(reg, m.guardFired)
		m.ghostBrokers = promreg.Register(reg, m.ghostBrokers)
		m.adminRequests = promreg.Register(reg, m.adminRequests)
		m.certExpiry.gauge = promreg.Register(reg, m.certExpiry.gauge)
	}
	// Export zeros, so that rates start at 0 instead of appearing with the first event.
	for _, r := range []string{resultSuccess, resultRequeue, resultError} {
		m.reconciles.WithLabelValues(r)
	}
	for _, k := range step.Kinds {
		m.decisions.WithLabelValues(string(k))
	}
	for _, g := range []string{guardAdminCheck, guardPrecondition, guardFreshFacts} {
		m.guardFired.WithLabelValues(g)
	}
	brokers.ExportZeros(m.adminRequests)
	return m
}
