// Package promreg registers Prometheus collectors so that registering the same metrics twice on
// one registry (two overlays, two controllers, a test that builds its metrics again) shares the
// collectors registered first instead of failing.
package promreg

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers c on reg and returns it. When reg already holds a collector that describes
// the same metrics (same names, help, label names and constant labels), and that collector is a
// C, Register returns that collector instead, so the caller updates what reg exports. Any other
// failure panics, as prometheus.MustRegister does: a name registered with other labels or help,
// a collector of another type under the same descriptions, or an invalid collector are
// programming errors.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing
		}
	}
	panic(err)
}
