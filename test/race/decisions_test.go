package race

import (
	"context"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestUntargetedFindsDecommissionsBelowTheTarget(t *testing.T) {
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
	run := clusterRun{name: "bc", marks: []mark{{start, 4}, {start.Add(time.Second), 3}, {start.Add(2 * time.Second), 2}}}
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

	n, why := untargeted(c, run)
	if n != 2 {
		t.Fatalf("%d untargeted decommissions, want 2: %v", n, why)
	}
	t.Log(why)
}

func TestQuantile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.95, 10}, {0, 1}, {1, 10}} {
		if got := quantile(ds, tt.q); got != tt.want {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing is not zero")
	}
}

func TestMaintenanceOverlapsFindsTwoBrokersInMaintenance(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	c := sim.Cluster("ns", "bc")
	ids := map[int]int{}
	for o := range 3 {
		ids[o] = c.Join(o)
	}
	client, err := admin.NewClient(c.Config(3))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// One at a time: no overlap.
	for _, o := range []int{2, 1} {
		if err := client.EnableMaintenance(ctx, ids[o]); err != nil {
			t.Fatal(err)
		}
		if err := client.DisableMaintenance(ctx, ids[o]); err != nil {
			t.Fatal(err)
		}
	}
	if n, why := maintenanceOverlaps(c, "bc"); n != 0 {
		t.Fatalf("%d overlaps in a one-at-a-time rollout: %v", n, why)
	}
	// A second broker while the first is in maintenance: Redpanda refuses it, and that counts.
	if err := client.EnableMaintenance(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := client.EnableMaintenance(ctx, ids[1]); err == nil {
		t.Fatal("the simulator let two brokers into maintenance")
	}
	if n, why := maintenanceOverlaps(c, "bc"); n != 1 {
		t.Fatalf("%d overlaps, want 1: %v", n, why)
	}
}
