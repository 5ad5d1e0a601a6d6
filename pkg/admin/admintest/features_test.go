package admintest_test

import (
	"context"
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
	c.SetPodVersion(0, "v24.2.4")
	c.Down(0)
	c.Join(0)
	if got := c.ActiveVersion(); got != 14 {
		t.Fatalf("a broker back on v24.2: active %d; the active version never moves down", got)
	}
}
