package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestProfilesAreServedOnlyWithProfiling(t *testing.T) {
	for _, profiling := range []bool{false, true} {
		mux := metricsMux(prometheus.NewRegistry(), profiling)
		for path, want := range map[string]string{"/debug/pprof/": "goroutine", "/debug/pprof/cmdline": ""} {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			switch {
			case !profiling && rec.Code != http.StatusNotFound:
				t.Errorf("--profiling=false: GET %s = %d, want 404", path, rec.Code)
			case profiling && (rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want)):
				t.Errorf("--profiling: GET %s = %d %.80q, want 200 with %q", path, rec.Code, rec.Body.String(), want)
			}
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if rec.Code != http.StatusOK {
			t.Errorf("--profiling=%t: GET /metrics = %d", profiling, rec.Code)
		}
	}
}
