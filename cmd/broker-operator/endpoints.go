package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

// check is one health or readiness probe; nil means healthy.
type check func(r *http.Request) error

// probeHandler answers 200 "ok" when every check passes, and 500 with the failures otherwise.
func probeHandler(checks map[string]check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var failed []string
		for name, c := range checks {
			if err := c(r); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", name, err))
			}
		}
		if len(failed) > 0 {
			w.WriteHeader(http.StatusInternalServerError)
			for _, f := range failed {
				fmt.Fprintln(w, f)
			}
			return
		}
		fmt.Fprintln(w, "ok")
	})
}

func healthMux(healthz, readyz map[string]check) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/healthz", probeHandler(healthz))
	mux.Handle("/readyz", probeHandler(readyz))
	return mux
}

// metricsMux serves /metrics and, with profiling, Go's profiles under /debug/pprof/, as the
// Kubernetes components' --profiling does.
func metricsMux(gatherer prometheus.Gatherer, profiling bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// endpoint is a listening HTTP server the operator runs beside its controller.
type endpoint struct {
	name     string
	server   *http.Server
	listener net.Listener
}

// listen binds addr now, so that a port conflict fails start-up with a clear error rather than
// later in a goroutine. addr "0" means the endpoint is off (nil, nil).
func listen(name, addr string, handler http.Handler) (*endpoint, error) {
	if addr == "0" {
		return nil, nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s endpoint: %w", name, err)
	}
	return &endpoint{
		name:     name,
		listener: l,
		server:   &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second},
	}, nil
}

func (e *endpoint) serve(logger klog.Logger) {
	if e == nil {
		return
	}
	logger.Info("Serving", "endpoint", e.name, "address", e.listener.Addr().String())
	if err := e.server.Serve(e.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error(err, "Endpoint stopped", "endpoint", e.name)
	}
}

func (e *endpoint) shutdown(ctx context.Context) {
	if e == nil {
		return
	}
	_ = e.server.Shutdown(ctx)
}
