package soak

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestUntargeted(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	marks := []Mark{{at(0), 3}, {at(10), 2}, {at(20), 4}, {at(30), 3}}
	ordinals := map[int]int{100: 0, 101: 1, 102: 2, 103: 3}
	decommission := func(s, node, status int) admintest.Call {
		return admintest.Call{At: at(s), Method: http.MethodPut, NodeID: node, Status: status, Path: "/v1/brokers/" + strconv.Itoa(node) + "/decommission"}
	}
	calls := []admintest.Call{
		decommission(12, 102, 200), // scaling 3 to 2: ordinal 2 may go
		decommission(13, 101, 200), // ordinal 1 may not
		decommission(14, 101, 0),   // never answered: did not reach the cluster
		decommission(22, 102, 200), // scaling 2 to 4: ordinals from 2 up may go (a drain left over)
		decommission(32, 103, 200), // scaling 4 to 3: ordinal 3 may go
		{At: at(33), Method: http.MethodGet, NodeID: 101, Status: 200, Path: "/v1/brokers/101/decommission"},
		decommission(-1, 103, 200), // before the cluster existed
	}
	got := Untargeted("bc", calls, ordinals, marks)
	want := []string{
		"bc: decommission of node 101 (ordinal 1) while scaling to 2",
		"bc: decommission of node 103 before the cluster was created",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestConvergeAfter(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	steps := []Step{
		{Start: at(0), End: at(5)},   // over before the fault
		{Start: at(8), End: at(14)},  // in progress: 4 s after
		{Start: at(10), End: at(17)}, // started at the fault: 7 s after
		{Start: at(12), End: at(20)}, // started after it
		{Start: at(9)},               // never converged: stuck, not a time
	}
	got := ConvergeAfter(at(10), steps)
	if want := []time.Duration{4 * time.Second, 7 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if q := Quantile(got, 0.5); q != 4*time.Second {
		t.Errorf("median %v, want 4s", q)
	}
	if q := Quantile(nil, 0.5); q != 0 {
		t.Errorf("median of nothing %v, want 0", q)
	}
}
