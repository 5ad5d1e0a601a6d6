package soak

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/history"
)

func TestWriteReport(t *testing.T) {
	r := Result{Mode: "quick", Command: "go test ./test/soak -args -seed=5", Seed: 5, Started: time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC), Took: time.Minute,
		Clusters: 6, Steps: 30, Decommissions: 20, ScaleUps: 10,
		Requests: map[string]int{"get": 3, "patch": 40}, Relists: 4, LeaderChanges: 2,
		ComponentRestarts: map[string]int{"kube-scheduler": 2, "kube-controller-manager": 1},
		Faults:            []FaultStats{{Kind: "apiserver-restart", What: "kill | restart", Injected: 2, Relists: 3, Gone: 1, Notes: []string{"back in 3s"}, Converge: []time.Duration{time.Second, 3 * time.Second}}},
		History:           checkedHistory(),
	}
	r.judgeSafety([]admintest.Call{decommissionCall(2)}, nil)
	var b strings.Builder
	if err := WriteReport(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"seed 5", "go test ./test/soak -args -seed=5",
		"| **stale reads** (of reads judged against the process's own writes) | **1** (of 2) |",
		"| operator API requests | 43 (get 3, patch 40) |",
		"| apiserver-restart | 2 | 3 / 1 | 1s / 3s / 3s | kill / restart | back in 3s |",
		"| control plane components that exited and were started again | kube-controller-manager 1, kube-scheduler 2 |",
		"| **history checker: violations** (operations checked) | **1** (of 4 operations of 1 processes: 2 reads, 1 writes, 0 deletes, 1 admin calls) |",
		"| history checker: judged per guarantee | read-your-writes 2 (violated 1), monotonic-reads 1 (violated 0), no-resurrection 0 (violated 0), " +
			"delete-floor 0 (violated 0), no-future 0 (violated 0), real-versions 1 (violated 0), real-uids 2 (violated 0), failover-reads not judged (no audit log), fresh-decisions 1 (violated 0), " +
			"one-decommission 1 (violated 0), one-unavailable 0 (violated 0), " +
			"leader-decides not judged (no leadership events) |",
		"| history checker: not judged (unparseable resourceVersions, unresolved writes, unlinked leaderships, unattributed reads, unreadable trace lines) | 0, 0, 0, 0, 0 |",
		"| history checker: evidence | enough |",
		"| **double decommissions**: history / simulator (violations of calls judged) | 0 of 1 / 0 of 1 |",
		"| **brokers in maintenance at once**: history / simulator (violations of calls judged) | 0 of 0 / 0 of 0 |",
		"| **decisions by a deposed leader**: history / simulator (violations of calls judged) | not judged / not judged |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if r.Violations() != 1 {
		t.Errorf("violations %d, want 1 (the stale read the history checker found)", r.Violations())
	}
	if p := r.SafetyProblems(); len(p) != 0 {
		t.Errorf("safety problems %q, want none", p)
	}
}

func decommissionCall(node int) admintest.Call {
	return admintest.Call{Method: http.MethodPut, Status: http.StatusOK, NodeID: node, Path: fmt.Sprintf("/v1/brokers/%d/decommission", node)}
}

// The two judges of a safety rule check each other: they must agree, and neither may judge
// nothing in a run that made such calls.
func TestSafetyProblems(t *testing.T) {
	r := Result{Decommissions: 3, History: checkedHistory()}
	r.judgeSafety([]admintest.Call{decommissionCall(2), decommissionCall(2)}, []string{"ns/bc: decommission of node 2, which is draining"})
	if got, want := r.SafetyProblems(), []string{"double decommissions: the history checker found 0 violations, the simulator 1"}; !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	r.judgeSafety(nil, nil)
	if got, want := r.SafetyProblems(), []string{"double decommissions: the simulator judged no call"}; !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	r.Rollouts = 1 // a run with a rollout in which neither judge saw a maintenance call
	got := r.SafetyProblems()
	if len(got) != 3 || !slices.Contains(got, "brokers in maintenance at once: the history checker judged no call") ||
		!slices.Contains(got, "brokers in maintenance at once: the simulator judged no call") {
		t.Errorf("problems %q, want both judges named for judging no maintenance call", got)
	}
}

// checkedHistory is the history checker's report of one process that read its BrokerCluster
// older than its own write once, then read it fresh and decommissioned broker 2.
func checkedHistory() *history.Report {
	bc := history.Key{Resource: "brokerclusters", Namespace: "ns", Name: "bc"}
	h := &history.History{Process: "a-1", Events: []history.Event{
		{Kind: history.KindWrite, Key: bc, Verb: "patch", UID: "u", RV: "11", Code: 200, Start: 1, End: 2},
		{Kind: history.KindRead, Worker: 1, Reconcile: 1, Key: bc, UID: "u", RV: "10", Found: true, Start: 3, End: 4},
		{Kind: history.KindRead, Worker: 1, Reconcile: 2, Key: bc, UID: "u", RV: "11", Found: true, Start: 5, End: 6},
		{Kind: history.KindAdmin, Worker: 1, Reconcile: 2, Key: bc, Verb: history.CallDecommission, Broker: "2", Start: 7, End: 8},
	}}
	return history.Check(history.Input{Histories: []*history.History{h}})
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
	rows[0].BusyWatchBytes = map[string]int64{"pods": 300 << 10, "brokerclusters": 500 << 10, "statefulsets": 100 << 10}
	// 100 reactions of 1 ms to 100 ms: the p50 is the 50th, the p99 the 99th.
	for i := 100; i >= 1; i-- {
		rows[0].Reactions = append(rows[0].Reactions, time.Duration(i)*time.Millisecond)
		rows[0].ReactionPatches = append(rows[0].ReactionPatches, time.Duration(i)*time.Millisecond/10)
	}
	var b strings.Builder
	WriteScaleTable(&b, rows)
	for _, want := range []string{
		"| 100 | 1m0s | 40.0 | 10.0 | 102.4 | 0.0 | 800 | 8.0 | 2.0 | 20.0 | 5 / 50 | 30 | 1m0s |",
		"| 100 | uncached | 1.00 (0 / 0) | 2.50 | 1.50 | 1.00 | 1.00 |",
		"| 300 | 0s | 60.0 | 30.0 | 102.4 | 0.0 | 0 | 0.0 |", // 20 MiB more for 200 more clusters
		"| 100 | writeback | 100 | 50.0 | 99.0 | 100.0 | 5.0 / 9.9 |",
		// Per decommission, largest first.
		"| 100 | writeback | 9.0 | brokerclusters 5.0, pods 3.0, statefulsets 1.0 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "| 100 | uncached | 0 |") {
		t.Errorf("a row without reactions has a reaction line:\n%s", b.String())
	}
	var none strings.Builder
	WriteScaleTable(&none, rows[1:])
	if strings.Contains(none.String(), "Reaction time") || strings.Contains(none.String(), "Watch streams") {
		t.Errorf("a reaction or watch table without their counts:\n%s", none.String())
	}
}
