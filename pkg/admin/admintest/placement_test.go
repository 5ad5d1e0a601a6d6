package admintest_test

import (
	"context"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// GET /v1/cluster/partitions lists the simulated topic's partitions with as many replicas as its
// factor, and GET /v1/brokers each broker's rack and data disk as set.
func TestThePreflightsReadsFollowTheCluster(t *testing.T) {
	s, _ := newSim(t, admintest.Options{ReplicasPerBroker: 2})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	c.SetReplicationFactor(3)
	parts, err := cl.ClusterPartitions(ctx)
	if err != nil || len(parts) != 2 {
		t.Fatalf("ClusterPartitions = %+v, %v; want the 2 partitions of kafka/simulated", parts, err)
	}
	for _, p := range parts {
		if p.Namespace != "kafka" || p.Topic != "simulated" || len(p.Replicas) != 3 {
			t.Errorf("partition %+v, want kafka/simulated with 3 replicas", p)
		}
	}
	c.SetReplicationFactor(2)
	if parts, _ := cl.ClusterPartitions(ctx); len(parts[0].Replicas) != 2 {
		t.Errorf("after the factor dropped to 2: %+v", parts)
	}
	c.SetRack(1, "zone-b")
	c.SetDisk(2, 1<<30, 10<<30)
	brokers, err := cl.Brokers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range brokers {
		ordinal := -1
		for o := range 3 {
			if id, _ := c.NodeID(o); id == b.NodeID {
				ordinal = o
			}
		}
		wantRack, wantFree := "", int64(90<<30)
		switch ordinal {
		case 1:
			wantRack = "zone-b"
		case 2:
			wantFree = 1 << 30
		}
		if b.Rack != wantRack || !b.Disk.Known || b.Disk.Free != wantFree {
			t.Errorf("broker %d (ordinal %d): rack %q, disk %+v; want rack %q, %d free", b.NodeID, ordinal, b.Rack, b.Disk, wantRack, wantFree)
		}
	}
}
