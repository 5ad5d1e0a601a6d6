package controller

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// certExpiry is the gauge broker_operator_certificate_expiry_timestamp_seconds and the series
// each cluster has in it, so that a listener that loses its TLS, or a cluster that is deleted,
// loses its series without a gap in the others.
type certExpiry struct {
	gauge *prometheus.GaugeVec
	mu    sync.Mutex
	// series holds, by cluster key, the listener and Secret of each series it set.
	series map[string]map[[2]string]bool
}

func newCertExpiry() *certExpiry {
	return &certExpiry{
		gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "broker_operator", Name: "certificate_expiry_timestamp_seconds",
			Help: "When the certificate in tls.crt of each TLS listener's Secret expires (its NotAfter, Unix seconds), by BrokerCluster, listener and Secret, as last read by the operator.",
		}, []string{"namespace", "name", "listener", "secret"}),
		series: map[string]map[[2]string]bool{},
	}
}

// certificateExpiry is one listener Secret's certificate expiry.
type certificateExpiry struct {
	listener, secret string
	notAfter         float64
}

// set makes the cluster's series those of expiries, deleting the others it had.
func (e *certExpiry) set(ns, name string, expiries []certificateExpiry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := ns + "/" + name
	now := map[[2]string]bool{}
	for _, x := range expiries {
		e.gauge.WithLabelValues(ns, name, x.listener, x.secret).Set(x.notAfter)
		now[[2]string{x.listener, x.secret}] = true
	}
	for s := range e.series[key] {
		if !now[s] {
			e.gauge.DeleteLabelValues(ns, name, s[0], s[1])
		}
	}
	if len(now) == 0 {
		delete(e.series, key)
		return
	}
	e.series[key] = now
}

// forget deletes the series of a cluster that is gone.
func (e *certExpiry) forget(ns, name string) { e.set(ns, name, nil) }
