package race

import (
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"
)

func TestParseRows(t *testing.T) {
	rows, err := ParseRows("cache, uncached+D,writeback+C+D,writeback+C+D+R")
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{{Strategy: "cache"}, {Strategy: "uncached", AdminCheck: true}, {Strategy: "writeback", AdminCheck: true, Precondition: true},
		{Strategy: "writeback", AdminCheck: true, Precondition: true, Rollout: true}}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
		if back, err := ParseRows(rows[i].Name()); err != nil || back[0] != rows[i] {
			t.Errorf("ParseRows(%q) = %+v, %v", rows[i].Name(), back, err)
		}
	}
	for _, bad := range []string{"", "fast", "cache+X", "writeback,"} {
		if _, err := ParseRows(bad); err == nil {
			t.Errorf("ParseRows(%q): want an error", bad)
		}
	}
}

func TestWriteTableHasTheCommandAndOneLinePerRow(t *testing.T) {
	cache := Result{Row: Row{Strategy: "cache"}, Clusters: 3, Stats: Stats{
		Requests:   map[string]int{harness.VerbPatch: 80, harness.VerbWatch: 20},
		StaleReads: map[string]int{"brokerclusters": 4, "statefulsets": 1},
	}, DoubleDecommissions: 2, LeftEarly: 1, Maintenance: 1, HistoryChecked: 900, HistoryViolations: 7,
		Safety: []harness.Rule{{Name: "double decommissions", History: harness.Tally{Judged: 12, Violations: 2}, Simulator: harness.Tally{Judged: 12, Violations: 2}},
			{Name: "brokers in maintenance at once", History: harness.Tally{NotJudged: "no maintenance-off"}, Simulator: harness.Tally{Judged: 4, Violations: 1}}}}
	wb := Result{Row: Row{Strategy: "writeback"}, Clusters: 3, Stats: Stats{Requests: map[string]int{harness.VerbPatch: 84, harness.VerbWatch: 20}}}
	var b strings.Builder
	err := WriteTable(&b, Header{Command: "go test -tags e2e ./test/race", Seed: 9, Lag: harness.Lag{Max: 50 * time.Millisecond}}, []Result{cache, wb})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"go test -tags e2e ./test/race", "seed 9", "0s-50ms",
		"| cache | 5 (4 / 1) | 900 / 7 | 4 (2 / 0 / 1 / 1) | double decommissions: history 2 of 12, simulator 2 of 12; brokers in maintenance at once: history not judged, simulator 1 of 4 |",
		"| writeback | 0 (0 / 0) | 0 / 0 | 0 (0 / 0 / 0 / 0) |  |",
		"| 104 | 1.04× | - |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestWritePoolTableGivesCostsPerMove(t *testing.T) {
	rule := harness.Rule{Name: "double decommissions", History: harness.Tally{Judged: 61, Violations: 1}, Simulator: harness.Tally{Judged: 61, Violations: 1}}
	cache := Result{Row: Row{Strategy: "cache"}, Clusters: 10, Steps: 20, StepRequests: 1000, StepAdminCalls: 1300, StepCPU: 4 * time.Second,
		StepP50: 8 * time.Second, StepP99: 12 * time.Second, DoubleDecommissions: 1, Safety: []harness.Rule{rule},
		Stats: Stats{StaleReads: map[string]int{"brokerclusters": 2, "statefulsets": 1}}}
	wb := Result{Row: Row{Strategy: "writeback"}, Clusters: 10, Steps: 20, StepRequests: 900, StepAdminCalls: 1200, StepCPU: 4 * time.Second, Stuck: 1}
	var b strings.Builder
	h := Header{Command: "go test -tags e2e ./test/race -args -workload=pools", Workload: WorkloadPools, Moves: 2, Decommissions: 6, Clusters: 10, Seed: 9}
	if err := WriteTable(&b, h, []Result{cache, wb}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"-workload=pools", "10 clusters of 3 brokers, each moved 2 times between the default pool and pool blue (6 decommissions per cluster)",
		"| API requests per move | vs cache | vs uncached | admin requests per move | CPU per move | move p50 / p99 |",
		"| cache | 3 (2 / 1) | 0 / 0 | 1 (1 / 0 / 0 / 0) | double decommissions: history 1 of 61, simulator 1 of 61 | 0 | 0 of 10 | 50.0 | 1.00× | - | 65.0 | 200ms | 8s / 12s |",
		"| writeback | 0 (0 / 0) | 0 / 0 | 0 (0 / 0 / 0 / 0) |  | 0 | 1 of 10 | 45.0 | 0.90× | - | 60.0 | 200ms |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
