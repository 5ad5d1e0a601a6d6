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
	}
	for _, g := range []string{guardAdminCheck, guardPrecondition} {
		m.guardFired.WithLabelValues(g) // export zeros
	}
	if reg != nil {
		m.reconciles = register(reg, m.reconciles)
		m.decisions = register(reg, m.decisions)
		m.guardFired = register(reg, m.guardFired)
	}
	return m
}

// register registers c, or returns the collector already registered under its name.
func register(reg prometheus.Registerer, c *prometheus.CounterVec) *prometheus.CounterVec {
	if err := reg.Register(c); err != nil {
		var already prometheus.AlreadyRegisteredError
		if errors.As(err, &already) {
			if existing, ok := already.ExistingCollector.(*prometheus.CounterVec); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}
