package admintest_test

import (
	"context"
	"errors"
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
