package harness

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestUntargeted(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	marks := []Mark{{At: at(0), Target: 3}, {At: at(10), Target: 2}, {At: at(20), Target: 4}, {At: at(30), Target: 3}}
	ordinals := map[int]Pod{100: {Ordinal: 0}, 101: {Ordinal: 1}, 102: {Ordinal: 2}, 103: {Ordinal: 3}}
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

func TestUntargetedJudgesTheSimulatorsCallLog(t *testing.T) {
	clock := admintest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sim := admintest.NewServer(admintest.Options{Clock: clock, DrainTime: time.Hour})
	defer sim.Close()
	c := sim.Cluster("ns", "bc")
	ids := map[int]int{}
	for o := range 4 {
		ids[o] = c.Join(o)
	}
	client, err := admin.NewClient(c.Config(4))
	if err != nil {
		t.Fatal(err)
	}
	start := clock.Now()
	marks := []Mark{{At: start, Target: 4}, {At: start.Add(time.Second), Target: 3}, {At: start.Add(2 * time.Second), Target: 2}}
	decommission := func(ordinal int) {
		t.Helper()
		if err := client.Decommission(context.Background(), ids[ordinal]); err != nil {
			t.Fatal(err)
		}
	}

	clock.Advance(1500 * time.Millisecond) // scaling 4 → 3: ordinal 3 may go
	decommission(3)
	decommission(1)            // not targeted
	clock.Advance(time.Second) // scaling 3 → 2: ordinals 2 and up (3 was the last step's)
	decommission(2)
	decommission(0) // not targeted

	got := Untargeted("bc", c.Calls(), Ordinals(c), marks)
	want := []string{
		fmt.Sprintf("bc: decommission of node %d (ordinal 1) while scaling to 3", ids[1]),
		fmt.Sprintf("bc: decommission of node %d (ordinal 0) while scaling to 2", ids[0]),
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestUntargetedJudgesPoolMoves moves three brokers from the default pool to pool blue and back:
// during each move the pool being emptied may lose any broker, the pool being filled none.
func TestUntargetedJudgesPoolMoves(t *testing.T) {
	clock := admintest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sim := admintest.NewServer(admintest.Options{Clock: clock, DrainTime: time.Hour})
	defer sim.Close()
	c := sim.Cluster("ns", "bc")
	blue := c.Pool("blue")
	old := map[int]int{}
	for o := range 3 {
		old[o] = c.Join(o)
	}
	before := KnownBrokers(c)
	moved := map[int]int{}
	for o := range 3 {
		moved[o] = blue.Join(o) // blue's brokers join during the move
	}
	client, err := admin.NewClient(c.Config(3))
	if err != nil {
		t.Fatal(err)
	}
	start := clock.Now()
	marks := []Mark{
		{At: start, Target: 3},
		{At: start.Add(time.Second), Target: 0, Pools: map[string]int32{"blue": 3}, Known: before},
		{At: start.Add(2 * time.Second), Target: 3, Pools: map[string]int32{"blue": 0}, Known: KnownBrokers(c)},
	}
	decommission := func(id int) {
		t.Helper()
		if err := client.Decommission(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}

	clock.Advance(1500 * time.Millisecond) // default to blue: the default pool's brokers may go
	decommission(old[2])
	decommission(old[0])
	decommission(moved[1])     // not targeted: blue is filling
	clock.Advance(time.Second) // blue back to default: blue's may go, and so may a default
	decommission(moved[0])     // pool's broker still left over from the move before
	decommission(old[1])

	got := Untargeted("bc", c.Calls(), Ordinals(c), marks)
	want := []string{fmt.Sprintf("bc: decommission of node %d (pool blue ordinal 1) while scaling pool blue to 3", moved[1])}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestQuantile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.95, 10}, {0, 1}, {1, 10}} {
		if got := Quantile(ds, tt.q); got != tt.want {
			t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if Quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing is not zero")
	}
}
