package promreg

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func counterVec(help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "promreg_test_total", Help: help}, []string{"kind"})
}

// exported returns the value reg exports for promreg_test_total{kind="a"}, and how many series
// of it there are.
func exported(t *testing.T, reg prometheus.Gatherer) (value float64, series int) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "promreg_test_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			series++
			value = m.GetCounter().GetValue()
		}
	}
	return value, series
}

func TestRegisterReturnsTheCollectorItRegistered(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	c := counterVec("Things.")
	if got := Register(reg, c); got != c {
		t.Fatal("Register did not return the collector it registered")
	}
	c.WithLabelValues("a").Inc()
	if v, n := exported(t, reg); n != 1 || v != 1 {
		t.Fatalf("the registry exports %d series, value %v; want 1 series, value 1", n, v)
	}
}

// A second registration of the same metrics gets the first collector, so that what it counts is
// what the registry exports.
func TestRegisterTwiceSharesTheFirstCollector(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	first := Register(reg, counterVec("Things."))
	second := Register(reg, counterVec("Things."))
	if second != first {
		t.Fatal("the second registration did not return the collector registered first")
	}
	second.WithLabelValues("a").Add(2)
	first.WithLabelValues("a").Inc()
	if v, n := exported(t, reg); n != 1 || v != 3 {
		t.Fatalf("the registry exports %d series, value %v; want 1 series, value 3", n, v)
	}
}

func TestRegisterPanicsOnAConflict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func(prometheus.Registerer)
	}{
		{"other help", func(reg prometheus.Registerer) { Register(reg, counterVec("Other things.")) }},
		{"other labels", func(reg prometheus.Registerer) {
			Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "promreg_test_total", Help: "Things."}, []string{"other"}))
		}},
		// The same descriptions, so the registry says "already registered", but not a *GaugeVec.
		{"other type", func(reg prometheus.Registerer) {
			Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "promreg_test_total", Help: "Things."}, []string{"kind"}))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			Register(reg, counterVec("Things."))
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			tc.register(reg)
		})
	}
}
