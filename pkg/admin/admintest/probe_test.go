package admintest_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// A restarted broker reclaims its load over the recovery time, as its own post_restart_probe
// says; a broker older than 25.1 has no probe (404, ErrNotFound).
func TestPostRestartProbeFollowsRecoveryAndVersion(t *testing.T) {
	s, clock := newSim(t, admintest.Options{Version: "v25.1.2"})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	if pc, err := cl.PostRestartProbe(ctx, 2); err != nil || pc != 100 {
		t.Fatalf("a broker that never restarted: %d, %v; want 100", pc, err)
	}
	c.SetRecoveryTime(10 * time.Minute)
	c.Down(2)
	c.Join(2)
	clock.Advance(4 * time.Minute)
	if pc, err := cl.PostRestartProbe(ctx, 2); err != nil || pc != 40 {
		t.Fatalf("4 of 10 minutes after its restart: %d, %v; want 40", pc, err)
	}
	if pc, _ := cl.PostRestartProbe(ctx, 1); pc != 100 {
		t.Errorf("the probe answers for the broker asked, not another: broker 1 says %d", pc)
	}
	clock.Advance(6 * time.Minute)
	if pc, _ := cl.PostRestartProbe(ctx, 2); pc != 100 {
		t.Errorf("after the recovery time: %d, want 100", pc)
	}
	c.SetPodVersion(2, "v24.3.9")
	c.Down(2)
	c.Join(2)
	if _, err := cl.PostRestartProbe(ctx, 2); !errors.Is(err, admin.ErrNotFound) {
		t.Errorf("a v24.3 broker: %v, want ErrNotFound", err)
	}
}

// The pre-restart probe answers for the broker asked: RF 1 partitions go offline with it, a
// partition that would keep no majority is unavailable, and a test can add acks=1 risks.
func TestPreRestartProbeDerivesRisksFromTheCluster(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Version: "v25.1.2", ReplicasPerBroker: 2})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	c.SetReplicationFactor(3)
	if r, err := cl.PreRestartProbe(ctx, 2); err != nil || len(r.Unavailable)+len(r.RF1Offline)+len(r.Acks1DataLoss)+len(r.FullAcksProduceUnavailable) != 0 {
		t.Fatalf("RF 3, all up: %+v, %v; want no risk", r, err)
	}
	c.Down(0)
	if r, _ := cl.PreRestartProbe(ctx, 2); len(r.Unavailable) != 2 || len(r.FullAcksProduceUnavailable) != 2 {
		t.Errorf("RF 3, another broker down: %+v; want both partitions unavailable", r)
	}
	c.Join(0)
	c.SetRestartRisks(1, admin.RestartRisks{Acks1DataLoss: []string{"kafka/orders/0"}})
	if r, _ := cl.PreRestartProbe(ctx, 1); len(r.Acks1DataLoss) != 1 || r.Acks1DataLoss[0] != "kafka/orders/0" {
		t.Errorf("added acks=1 risk: %+v", r)
	}
	if r, _ := cl.PreRestartProbe(ctx, 2); len(r.Acks1DataLoss) != 0 {
		t.Errorf("the risk of broker 1 shows on broker 2: %+v", r)
	}
	c.SetReplicationFactor(1)
	if r, _ := cl.PreRestartProbe(ctx, 2); len(r.RF1Offline) != 2 || len(r.Unavailable) != 0 {
		t.Errorf("RF 1: %+v; want both partitions rf1_offline only", r)
	}
	c.SetPodVersion(2, "v24.3.9")
	c.Down(2)
	c.Join(2)
	if _, err := cl.PreRestartProbe(ctx, 2); !errors.Is(err, admin.ErrNotFound) {
		t.Errorf("a v24.3 broker: %v, want ErrNotFound", err)
	}
}

// The probe's risks follow from where each partition's replicas are: with five brokers at RF 3
// and one broker down, restarting another puts at risk exactly the partitions that have
// replicas on both, and every broker hosts its share of the replicas.
func TestPreRestartProbeFollowsPartitionReplicas(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Version: "v25.1.2", ReplicasPerBroker: 3})
	c := s.Cluster("ns", "c")
	joinAll(c, 5)
	c.SetReplicationFactor(3)
	cl := clientFor(t, c, 5)
	placed := c.PartitionReplicas()
	if len(placed) != 5 {
		t.Fatalf("%d partitions, want 5 (3 replicas on each of 5 brokers at RF 3)", len(placed))
	}
	hosted := map[int]int{}
	for name, replicas := range placed {
		if len(replicas) != 3 || replicas[0] == replicas[1] || replicas[1] == replicas[2] || replicas[0] == replicas[2] {
			t.Errorf("%s on %v, want 3 distinct brokers", name, replicas)
		}
		for _, id := range replicas {
			hosted[id]++
		}
	}
	for id, n := range hosted {
		if n != 3 {
			t.Errorf("broker %d hosts %d replicas, want 3", id, n)
		}
	}
	down, _ := c.NodeID(0)
	restarting, _ := c.NodeID(2)
	c.Down(0)
	var want []string
	for name, replicas := range placed {
		if slices.Contains(replicas, down) && slices.Contains(replicas, restarting) {
			want = append(want, name)
		}
	}
	r, err := cl.PreRestartProbe(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(r.Unavailable))
	if len(want) == 0 || len(want) == len(placed) || !slices.Equal(got, want) || !slices.Equal(slices.Sorted(slices.Values(r.FullAcksProduceUnavailable)), want) {
		t.Errorf("unavailable %v, full acks %v; want the partitions on both node %d and node %d: %v (placement %v)", got, r.FullAcksProduceUnavailable, down, restarting, want, placed)
	}
}

// A recovery keeps the recovery time it began with, and is listed with its span.
func TestRecoveriesKeepTheirTime(t *testing.T) {
	s, clock := newSim(t, admintest.Options{Version: "v25.1.2"})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	cl := clientFor(t, c, 3)
	c.SetRecoveryTime(10 * time.Second)
	c.Down(1)
	c.Join(1)
	c.SetRecoveryTime(0)
	clock.Advance(5 * time.Second)
	if pc, err := cl.PostRestartProbe(context.Background(), 1); err != nil || pc != 50 {
		t.Fatalf("halfway through a 10 s recovery, the recovery time since set to 0: %d, %v; want 50", pc, err)
	}
	rs := c.Recoveries()
	if id, _ := c.NodeID(1); len(rs) != 1 || rs[0].NodeID != id || rs[0].To.Sub(rs[0].From) != 10*time.Second {
		t.Errorf("recoveries %+v, want one of 10 s for ordinal 1", rs)
	}
	c.Down(2)
	c.Join(2)
	if len(c.Recoveries()) != 1 {
		t.Errorf("a restart at recovery time 0 listed as a recovery: %+v", c.Recoveries())
	}
}
