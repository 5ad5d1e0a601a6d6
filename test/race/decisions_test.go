package race

import (
	"context"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

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
