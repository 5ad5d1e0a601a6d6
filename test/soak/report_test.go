package soak

import (
	"strings"
	"testing"
	"time"
)

func TestWriteReport(t *testing.T) {
	r := Result{Mode: "quick", Command: "go test ./test/soak -args -seed=5", Seed: 5, Started: time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC), Took: time.Minute,
		Clusters: 6, Steps: 30, Decommissions: 20, ScaleUps: 10, Reads: 500, StaleReads: 1,
		Requests: map[string]int{"get": 3, "patch": 40}, Relists: 4, LeaderChanges: 2,
		ComponentRestarts: map[string]int{"kube-scheduler": 2, "kube-controller-manager": 1},
		Faults:            []FaultStats{{Kind: "apiserver-restart", What: "kill | restart", Injected: 2, Relists: 3, Gone: 1, Notes: []string{"back in 3s"}, Converge: []time.Duration{time.Second, 3 * time.Second}}}}
	var b strings.Builder
	if err := WriteReport(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"seed 5", "go test ./test/soak -args -seed=5",
		"| **stale reads** (of reconciles judged) | **1** (of 500) |",
		"| operator API requests | 43 (get 3, patch 40) |",
		"| apiserver-restart | 2 | 3 / 1 | 1s / 3s / 3s | kill / restart | back in 3s |",
		"| control plane components that exited and were started again | kube-controller-manager 1, kube-scheduler 2 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if r.Violations() != 1 {
		t.Errorf("violations %d, want 1", r.Violations())
	}
}

func TestWriteScaleTable(t *testing.T) {
	rows := []ScaleRow{
		{Clusters: 100, Strategy: "writeback", BringUp: time.Minute, RSS: 40 << 20, Heap: 10 << 20, QuietPerMin: 0, BusyRequests: 800, BusyCPU: 2, Decommissions: 100, P50: 0.005, P99: 0.05, MaxDepth: 30, Busy: time.Minute},
		{Clusters: 100, Strategy: "uncached", RSS: 40 << 20, Heap: 10 << 20, QuietPerMin: 0, BusyRequests: 2000, BusyCPU: 3},
		{Clusters: 300, Strategy: "writeback", RSS: 60 << 20, Heap: 30 << 20, Decommissions: 300},
	}
	var b strings.Builder
	WriteScaleTable(&b, rows)
	for _, want := range []string{
		"| 100 | 1m0s | 40.0 | 10.0 | 102.4 | 0.0 | 800 | 8.0 | 2.0 | 20.0 | 5 / 50 | 30 | 1m0s |",
		"| 100 | uncached | 1.00 (0 / 0) | 2.50 | 1.50 | 1.00 | 1.00 |",
		"| 300 | 0s | 60.0 | 30.0 | 102.4 | 0.0 | 0 | 0.0 |", // 20 MiB more for 200 more clusters
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
