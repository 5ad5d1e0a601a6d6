package admintest_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestBrokerAndNodeConfigNameTheBrokerOfEachPod(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	for ordinal, id := range ids {
		nc, err := cl.NodeConfig(ctx, ordinal)
		if err != nil || nc.NodeID != id {
			t.Errorf("NodeConfig(%d) = %+v, %v; want node %d", ordinal, nc, err, id)
		}
		b, err := cl.Broker(ctx, id)
		if err != nil || b.NodeID != id || b.MembershipStatus != admin.MembershipActive {
			t.Errorf("Broker(%d) = %+v, %v", id, b, err)
		}
	}
	if _, err := cl.Broker(ctx, 9999); !errors.Is(err, admin.ErrBrokerNotFound) {
		t.Errorf("Broker(9999): %v, want ErrBrokerNotFound", err)
	}
}

func TestMaintenanceIsOneBrokerAtATime(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()

	if err := cl.EnableMaintenance(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	if err := cl.EnableMaintenance(ctx, ids[2]); err != nil {
		t.Errorf("enabling it again: %v, want success as Redpanda answers", err)
	}
	b, _ := cl.Broker(ctx, ids[2])
	if !b.MaintenanceStatus.Draining {
		t.Errorf("broker in maintenance reports %+v", b.MaintenanceStatus)
	}
	if err := cl.EnableMaintenance(ctx, ids[1]); !errors.Is(err, admin.ErrInvalidStateTransition) {
		t.Errorf("second broker into maintenance: %v, want ErrInvalidStateTransition", err)
	}
	if err := cl.DisableMaintenance(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	if err := cl.DisableMaintenance(ctx, ids[2]); err != nil {
		t.Errorf("disabling it again: %v", err)
	}
	if err := cl.EnableMaintenance(ctx, ids[1]); err != nil {
		t.Errorf("after the first left maintenance: %v", err)
	}
	if err := cl.EnableMaintenance(ctx, 9999); !errors.Is(err, admin.ErrBrokerNotFound) {
		t.Errorf("unknown broker: %v", err)
	}

	single := s.Cluster("ns", "single")
	id := single.Join(0)
	if err := clientFor(t, single, 1).EnableMaintenance(ctx, id); !errors.Is(err, admin.ErrBadRequest) {
		t.Errorf("single-node cluster: %v, want ErrBadRequest", err)
	}
}

func TestHealthOverviewReportsDownBrokers(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)
	h, err := cl.HealthOverview(context.Background())
	if err != nil || !h.IsHealthy || !slices.Equal(h.AllNodes, ids) || len(h.NodesDown) != 0 || h.ControllerID != ids[0] {
		t.Fatalf("healthy cluster: %+v, %v", h, err)
	}
	c.Down(0)
	h, err = cl.HealthOverview(context.Background())
	if err != nil || h.IsHealthy || !slices.Equal(h.NodesDown, ids[:1]) || !slices.Contains(h.UnhealthyReasons, "nodes_down") {
		t.Fatalf("with a broker down: %+v, %v", h, err)
	}
}
