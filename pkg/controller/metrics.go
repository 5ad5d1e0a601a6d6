package controller

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Values of the labels of the controller's metrics.
const (
	resultSuccess = "success"
	resultRequeue = "requeue"
	resultError   = "error"

	guardAdminCheck   = "admin_check"
	guardPrecondition = "precondition"
)

// metrics are the controller's own Prometheus metrics.
type metrics struct {
	reconciles *prometheus.CounterVec // by result
	decisions  *prometheus.CounterVec // by step kind
	guardFired *prometheus.CounterVec // by guard
	// ghostBrokers is the number of ghost brokers of each cluster (ghosts.go), as of the last
	// reconcile that asked the admin API.
	ghostBrokers *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "broker_operator", Name: "reconciles_total",
			Help: "BrokerCluster reconciles by result: success, requeue (waiting on brokers) or error.",
		}, []string{"result"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "broker_operator", Name: "decisions_total",
			Help: "Scaling decisions by kind (the step a reconcile took).",
		}, []string{"kind"}),
		guardFired: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "broker_operator", Name: "guard_fired_total",
			Help: "Times a guard stopped a decision made on a stale read: admin_check (broker already gone or draining) or precondition (Conflict on the status write).",
		}, []string{"guard"}),
		ghostBrokers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "broker_operator", Name: "ghost_brokers",
			Help: "Brokers the admin API lists as active but not alive that no pod of the cluster runs, by BrokerCluster.",
		}, []string{"namespace", "name"}),
	}
	for _, g := range []string{guardAdminCheck, guardPrecondition} {
		m.guardFired.WithLabelValues(g) // export zeros
	}
	if reg != nil {
		m.reconciles = register(reg, m.reconciles)
		m.decisions = register(reg, m.decisions)
		m.guardFired = register(reg, m.guardFired)
		m.ghostBrokers = register(reg, m.ghostBrokers)
	}
	return m
}

// register registers c, or returns the collector already registered under its name.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var already prometheus.AlreadyRegisteredError
		if errors.As(err, &already) {
			if existing, ok := already.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}
