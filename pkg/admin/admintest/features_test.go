package admintest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// GET /v1/features: each broker names the logical versions its own binary supports, and the
// active version moves up only once every member runs the new release and is alive.
func TestFeaturesActiveVersionMovesOnceEveryBrokerRunsTheNewRelease(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Version: "v24.2.4"})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	ask := func(ordinal int) admin.Features {
		t.Helper()
		f, err := cl.Features(ctx, ordinal)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f := ask(0); f.ClusterVersion != 13 || f.OriginalClusterVersion != 13 || f.NodeLatestVersion != 13 || f.NodeEarliestVersion != 10 {
		t.Fatalf("a v24.2 cluster: %+v; want active, original and latest 13 (release_version v24_2_1), earliest 10", f)
	}
	for i, ordinal := range []int{2, 1} {
		c.SetPodVersion(ordinal, "v24.3.1")
		c.Down(ordinal)
		if f := ask(0); f.ClusterVersion != 13 {
			t.Fatalf("restart %d under way: active %d, want 13", i, f.ClusterVersion)
		}
		c.Join(ordinal)
		if f := ask(ordinal); f.NodeLatestVersion != 14 || f.ClusterVersion != 13 {
			t.Fatalf("after restart %d: %+v; want the v24.3 broker's latest 14, active still 13", i, f)
		}
	}
	if f := ask(0); f.NodeLatestVersion != 13 {
		t.Fatalf("the broker asked answers for itself: %+v, want latest 13", f)
	}
	c.SetPodVersion(0, "v24.3.1")
	c.Down(0)
	c.Join(0)
	if f := ask(1); f.ClusterVersion != 14 || f.OriginalClusterVersion != 13 {
		t.Fatalf("every broker on v24.3: %+v; want active 14, original 13", f)
	}
	// Once the active version moved, a broker put back on v24.2 is refused when it joins
	// (service.cc join_node): its pod runs, its broker is not alive, and nothing moves down.
	c.SetPodVersion(0, "v24.2.4")
	c.Down(0)
	if id := c.Join(0); id != -1 {
		t.Fatalf("a v24.2 broker joined a cluster whose active version is 14 (node %d)", id)
	}
	if r := s.RefusedJoins(); len(r) != 1 || !strings.Contains(r[0], "incompatible") {
		t.Fatalf("RefusedJoins = %v, want the incompatible join", r)
	}
	brokers, err := cl.Brokers(ctx)
	if err != nil || brokers[0].IsAlive {
		t.Fatalf("brokers = %+v, %v; want the refused broker not alive", brokers, err)
	}
	if got := c.ActiveVersion(); got != 14 {
		t.Fatalf("active %d; the active version never moves down", got)
	}
	c.SetPodVersion(0, "v24.3.2")
	c.Down(0)
	if id := c.Join(0); id < 0 {
		t.Fatal("a v24.3 broker was refused")
	}
	if brokers, _ := cl.Brokers(ctx); !brokers[0].IsAlive {
		t.Fatal("the broker back on v24.3 is not alive")
	}
}

// A skip of one feature release is not refused at join: a binary's range of logical versions is
// three wide (feature_table.cc), so v25.1 (12 to 15) reaches a v24.2 cluster's 13.
func TestAJoinIsRefusedOnlyOutsideTheBinarysRange(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Version: "v24.2.4"})
	c := s.Cluster("ns", "c")
	joinAll(c, 3)
	c.SetPodVersion(2, "v25.1.1")
	c.Down(2)
	if c.Join(2) < 0 {
		t.Fatalf("v25.1 refused by a v24.2 cluster: %v", s.RefusedJoins())
	}
	c.SetPodVersion(1, "v25.3.1")
	c.Down(1)
	if c.Join(1) >= 0 {
		t.Fatal("v25.3 (earliest 14) joined a cluster whose active version is 13")
	}
}
