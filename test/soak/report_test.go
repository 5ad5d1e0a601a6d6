package soak

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/history"
)

func TestWriteReport(t *testing.T) {
	r := Result{Mode: "quick", Command: "go test ./test/soak -args -seed=5", Seed: 5, Started: time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC), Took: time.Minute,
		Clusters: 6, Steps: 30, Decommissions: 20, ScaleUps: 10, Reads: 500, StaleReads: 1,
		Requests: map[string]int{"get": 3, "patch": 40}, Relists: 4, LeaderChanges: 2,
		ComponentRestarts: map[string]int{"kube-scheduler": 2, "kube-controller-manager": 1},
		Faults:            []FaultStats{{Kind: "apiserver-restart", What: "kill | restart", Injected: 2, Relists: 3, Gone: 1, Notes: []string{"back in 3s"}, Converge: []time.Duration{time.Second, 3 * time.Second}}},
		History:           checkedHistory(),
	}
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
		"| **history checker: violations** (operations checked) | **1** (of 9 operations of 2 processes: 5 reads, 2 writes, 0 deletes, 1 admin calls) |",
		"| history checker: judged per guarantee | read-your-writes 2 (violated 0), monotonic-reads 1 (violated 0), no-resurrection 0 (violated 0), " +
			"fresh-decisions 1 (violated 0), failover-reads 3 (violated 1) |",
		"| history checker: not judged (unparseable resourceVersions, unresolved writes, unlinked leaderships) | 0, 0, 1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if r.Violations() != 2 {
		t.Errorf("violations %d, want 2 (a stale read, a history violation)", r.Violations())
	}
}

// checkedHistory is a history checker's report of two processes: 9 operations, one
// violation of failover-reads.
func checkedHistory() *history.Report {
	return &history.Report{Processes: 2, Events: 9, Reads: 5, Writes: 2, AdminCalls: 1, Unlinked: 1,
		Judged:     map[history.Guarantee]int{history.ReadYourWrites: 2, history.MonotonicReads: 1, history.FreshDecisions: 1, history.FailoverReads: 3},
		Violations: []history.Violation{{Guarantee: history.FailoverReads, Process: "b-1"}}}
}

// The full run's report, written between the markers of docs/soak.md (-out), carries the
// history checker's figures; a run whose histories were not checked says so.
func TestReportOutCarriesTheHistoryChecker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "soak.md")
	if err := os.WriteFile(path, []byte("# Soak\n\n"+reportBegin+"\nold\n"+reportEnd+"\n\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteReport(&b, Result{Mode: "full", History: &history.Report{Processes: 3, Events: 120000, Reads: 80000, Writes: 40000, Judged: map[history.Guarantee]int{}}}); err != nil {
		t.Fatal(err)
	}
	if err := framework.WriteBetweenMarkers(path, reportBegin, reportEnd, b.String()); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "| **history checker: violations** (operations checked) | **0** (of 120000 operations of 3 processes: 80000 reads, 40000 writes, 0 deletes, 0 admin calls) |"
	if !strings.Contains(string(doc), want) || strings.Contains(string(doc), "\nold\n") || !strings.Contains(string(doc), reportEnd+"\n\nafter\n") {
		t.Errorf("docs/soak.md as written:\n%s\nwant it to hold %q between the markers", doc, want)
	}
	var unchecked strings.Builder
	if err := WriteReport(&unchecked, Result{Mode: "quick"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(unchecked.String(), "| **history checker: violations** (operations checked) | not checked |") {
		t.Errorf("a report without a history check:\n%s", unchecked.String())
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
