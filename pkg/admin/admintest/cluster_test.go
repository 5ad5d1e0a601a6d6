package admintest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestJoinGivesFreshIDsThatAreNotOrdinals(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 5)
	seen := map[int]bool{}
	for ordinal, id := range ids {
		if id == ordinal || seen[id] {
			t.Fatalf("ordinal %d got node ID %d (all: %v)", ordinal, id, ids)
		}
		seen[id] = true
	}
	if again := c.Join(2); again != ids[2] {
		t.Errorf("joining an active ordinal again gave %d, want the same ID %d", again, ids[2])
	}

	c.FinishDrains() // nothing draining: no effect
	if err := clientFor(t, c, 5).Decommission(context.Background(), ids[4]); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	c.Leave(4)
	reborn := c.Join(4)
	if seen[reborn] || reborn == 4 {
		t.Errorf("a broker rejoining after removal got ID %d; IDs must be fresh (used: %v)", reborn, ids)
	}
}

func TestBrokersListsMembersWithStableAddresses(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("team-a", "redpanda")
	ids := joinAll(c, 3)
	c.Down(1)

	brokers, err := clientFor(t, c, 3).Brokers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(brokers) != 3 {
		t.Fatalf("got %d brokers: %+v", len(brokers), brokers)
	}
	for _, b := range brokers {
		ordinal, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, "redpanda")
		if !ok || ids[ordinal] != b.NodeID {
			t.Errorf("broker %+v: address does not name its ordinal", b)
		}
		if b.InternalRPCAddress != admin.StableHostName("redpanda", "team-a", ordinal, admin.DefaultClusterDomain) || b.InternalRPCPort == 0 {
			t.Errorf("broker %+v: want the stable host name and a port", b)
		}
		if b.MembershipStatus != admin.MembershipActive || b.IsAlive != (ordinal != 1) {
			t.Errorf("broker %+v: want active, alive unless ordinal 1", b)
		}
	}
}

func TestDecommissionDrainsForTheDrainTimeThenTheBrokerLeaves(t *testing.T) {
	s, clock := newSim(t, admintest.Options{DrainTime: 10 * time.Second, ReplicasPerBroker: 10})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()

	if _, err := cl.DecommissionStatus(ctx, ids[2]); !errors.Is(err, admin.ErrNotDecommissioning) {
		t.Fatalf("status of an active broker: %v, want ErrNotDecommissioning", err)
	}
	if err := cl.Decommission(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	st, err := cl.DecommissionStatus(ctx, ids[2])
	if err != nil || st.Finished || st.ReplicasLeft != 10 {
		t.Fatalf("status at start = %+v, %v; want 10 replicas left", st, err)
	}
	assertStatus(t, cl, ids[2], admin.MembershipDraining)

	clock.Advance(4 * time.Second)
	st, _ = cl.DecommissionStatus(ctx, ids[2])
	if st.Finished || st.ReplicasLeft != 6 || st.MovingPartitions != 6 {
		t.Fatalf("status after 4s of 10s = %+v, want 6 replicas left", st)
	}

	clock.Advance(6 * time.Second)
	st, err = cl.DecommissionStatus(ctx, ids[2])
	if err != nil || !st.Finished || st.ReplicasLeft != 0 {
		t.Fatalf("status after the drain time = %+v, %v; want finished", st, err)
	}
	brokers, _ := cl.Brokers(ctx)
	for _, b := range brokers {
		if b.NodeID == ids[2] {
			t.Fatalf("decommissioned broker still listed: %+v", brokers)
		}
	}
	if _, ok := c.NodeID(2); ok {
		t.Error("NodeID(2) still reports the removed broker")
	}
	if len(brokers) != 2 {
		t.Errorf("listed %d brokers, want 2", len(brokers))
	}
	if got := s.DoubleDecommissions(); len(got) != 0 {
		t.Errorf("a clean decommission was reported: %v", got)
	}
}

func TestDecommissioningAGoneBrokerAnswersLikeARealClusterAndIsReported(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()

	if err := cl.Decommission(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	err := cl.Decommission(ctx, ids[2])
	if !errors.Is(err, admin.ErrBrokerNotFound) || !strings.Contains(err.Error(), "broker with id") {
		t.Fatalf("decommissioning a removed broker: %v, want ErrBrokerNotFound with Redpanda's message", err)
	}
	if err := cl.Decommission(ctx, 12345); !errors.Is(err, admin.ErrBrokerNotFound) {
		t.Fatalf("decommissioning an unknown ID: %v", err)
	}
	if _, err := cl.DecommissionStatus(ctx, 12345); !errors.Is(err, admin.ErrBrokerNotFound) {
		t.Fatalf("status of an unknown ID: %v", err)
	}
	if err := cl.Recommission(ctx, ids[2]); !errors.Is(err, admin.ErrBrokerNotFound) {
		t.Fatalf("recommissioning a removed broker: %v", err)
	}

	got := s.DoubleDecommissions()
	if len(got) != 2 || !strings.Contains(got[0], "already removed") || !strings.Contains(got[1], "never a member") {
		t.Fatalf("DoubleDecommissions = %q", got)
	}
}

func TestSecondDecommissionWhileDrainingIsRefusedAndReported(t *testing.T) {
	s, _ := newSim(t, admintest.Options{DrainTime: time.Minute})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)

	if err := cl.Decommission(context.Background(), ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := cl.Decommission(context.Background(), ids[1]); !errors.Is(err, admin.ErrAlreadyDecommissioned) {
		t.Fatalf("second decommission: %v, want ErrAlreadyDecommissioned", err)
	}
	got := s.DoubleDecommissions()
	if len(got) != 1 || !strings.Contains(got[0], "already draining") || !strings.Contains(got[0], "ns/c") {
		t.Fatalf("DoubleDecommissions = %q", got)
	}
}

// Each cluster reports only its own double decommissions; the server reports them all.
func TestDoubleDecommissionsAreCountedPerCluster(t *testing.T) {
	s, _ := newSim(t, admintest.Options{DrainTime: time.Minute})
	a, b := s.Cluster("ns", "a"), s.Cluster("ns", "b")
	idsA, idsB := joinAll(a, 3), joinAll(b, 3)
	ctx := context.Background()
	if err := clientFor(t, b, 3).Decommission(ctx, idsB[2]); err != nil {
		t.Fatal(err)
	}
	if err := clientFor(t, a, 3).Decommission(ctx, idsA[2]); err != nil {
		t.Fatal(err)
	}
	if err := clientFor(t, a, 3).Decommission(ctx, idsA[2]); !errors.Is(err, admin.ErrAlreadyDecommissioned) {
		t.Fatalf("second decommission: %v, want ErrAlreadyDecommissioned", err)
	}
	if got := a.DoubleDecommissions(); len(got) != 1 || !strings.HasPrefix(got[0], "ns/a:") {
		t.Errorf("a's double decommissions = %q, want its one", got)
	}
	if got := b.DoubleDecommissions(); len(got) != 0 {
		t.Errorf("b's double decommissions = %q, want none", got)
	}
	if got := s.DoubleDecommissions(); len(got) != 1 {
		t.Errorf("the server's double decommissions = %q, want a's one", got)
	}
}

func TestRecommissionStopsADrain(t *testing.T) {
	s, clock := newSim(t, admintest.Options{DrainTime: time.Minute})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()

	if err := cl.Recommission(ctx, ids[2]); !errors.Is(err, admin.ErrNotDecommissioning) {
		t.Fatalf("recommissioning an active broker: %v, want ErrNotDecommissioning", err)
	}
	if err := cl.Decommission(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Second)
	if err := cl.Recommission(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	assertStatus(t, cl, ids[2], admin.MembershipActive)

	// Scale down again: a legitimate second decommission, not a violation.
	if err := cl.Decommission(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	if got := s.DoubleDecommissions(); len(got) != 0 {
		t.Errorf("decommission after recommission reported: %q", got)
	}
	c.Leave(2)
	if got := s.LeftBeforeDecommission(); len(got) != 1 || !strings.Contains(got[0], "still draining") {
		t.Errorf("LeftBeforeDecommission = %q, want the draining broker", got)
	}
}

func TestLeaveChecksTheBrokerWasDecommissioned(t *testing.T) {
	s, clock := newSim(t, admintest.Options{DrainTime: time.Minute})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 4)
	cl := clientFor(t, c, 4)
	ctx := context.Background()

	c.Down(0) // a restart is not a departure
	c.Join(0)
	c.Leave(3) // never decommissioned
	if err := cl.Decommission(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	c.Leave(2) // still draining
	if err := cl.Decommission(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := cl.Recommission(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	c.Leave(1) // called off
	got := s.LeftBeforeDecommission()
	want := []string{"never requested", "still draining", "called off"}
	if len(got) != len(want) {
		t.Fatalf("LeftBeforeDecommission = %q", got)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("violation %d = %q, want it to say %q", i, got[i], want[i])
		}
	}

	// A broker that left without decommission stays listed, not alive, as a real cluster shows it.
	brokers, err := cl.Brokers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, b := range brokers {
		if b.NodeID == ids[3] {
			found = true
			if b.IsAlive {
				t.Errorf("departed broker listed alive: %+v", b)
			}
		}
	}
	if !found {
		t.Errorf("departed broker not listed: %+v", brokers)
	}

	// The clean path: decommission, drain, leave.
	s2, _ := newSim(t, admintest.Options{Clock: clock})
	c2 := s2.Cluster("ns", "c")
	id := joinAll(c2, 2)[1]
	if err := clientFor(t, c2, 2).Decommission(ctx, id); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Nanosecond)
	c2.Leave(1)
	if got := s2.LeftBeforeDecommission(); len(got) != 0 {
		t.Errorf("clean departure reported: %q", got)
	}
}

func TestClustersAreIndependent(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	a, b := s.Cluster("ns-a", "c"), s.Cluster("ns-b", "c")
	if s.Cluster("ns-a", "c") != a {
		t.Fatal("Cluster did not return the existing cluster")
	}
	idsA := joinAll(a, 3)
	joinAll(b, 1)
	if err := clientFor(t, a, 3).Decommission(context.Background(), idsA[2]); err != nil {
		t.Fatal(err)
	}
	brokers, err := clientFor(t, b, 1).Brokers(context.Background())
	if err != nil || len(brokers) != 1 || brokers[0].MembershipStatus != admin.MembershipActive {
		t.Fatalf("cluster b sees %+v, %v", brokers, err)
	}
	if len(a.Calls()) != 1 || len(b.Calls()) != 1 || len(s.Calls()) != 2 {
		t.Errorf("calls: a %d, b %d, all %d", len(a.Calls()), len(b.Calls()), len(s.Calls()))
	}
}

func TestBrokersSnapshot(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	c.Down(1)
	got := c.Brokers()
	want := []admintest.BrokerState{
		{NodeID: ids[0], Ordinal: 0, Status: admin.MembershipActive, PodRunning: true},
		{NodeID: ids[1], Ordinal: 1, Status: admin.MembershipActive, PodRunning: false},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Brokers() = %+v, want %+v", got, want)
	}
}

func assertStatus(t *testing.T, cl admin.Client, nodeID int, want admin.MembershipStatus) {
	t.Helper()
	brokers, err := cl.Brokers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range brokers {
		if b.NodeID == nodeID {
			if b.MembershipStatus != want {
				t.Errorf("node %d is %q, want %q", nodeID, b.MembershipStatus, want)
			}
			return
		}
	}
	t.Errorf("node %d not listed", nodeID)
}

func TestSyncPodsFollowsAStatefulSet(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	c.SyncPods([]int{0, 1, 2}, 3)
	ids := map[int]int{}
	for _, b := range c.Brokers() {
		ids[b.Ordinal] = b.NodeID
		if !b.PodRunning {
			t.Errorf("broker %+v not running after SyncPods", b)
		}
	}
	if len(ids) != 3 {
		t.Fatalf("brokers = %+v", c.Brokers())
	}

	c.SyncPods([]int{0, 2}, 3) // pod 1 restarts
	c.SyncPods([]int{0, 1, 2}, 3)
	if id, _ := c.NodeID(1); id != ids[1] {
		t.Errorf("a restarted pod got node %d, want its broker %d back", id, ids[1])
	}
	if got := s.LeftBeforeDecommission(); len(got) != 0 {
		t.Fatalf("a restart was taken for a departure: %q", got)
	}

	if err := clientFor(t, c, 3).Decommission(context.Background(), ids[2]); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	c.SyncPods([]int{0, 1, 2}, 3) // the drain finished; pod 2 still runs until the StatefulSet shrinks
	for _, b := range c.Brokers() {
		if b.Ordinal == 2 && b.Status != admin.MembershipRemoved {
			t.Fatalf("a decommissioned broker whose pod still runs rejoined: %+v", b)
		}
	}
	c.SyncPods([]int{0, 1}, 2) // the StatefulSet shrank after the drain finished
	c.SyncPods([]int{0}, 1)    // ... and again without a decommission
	got := s.LeftBeforeDecommission()
	if len(got) != 1 || !strings.Contains(got[0], fmt.Sprintf("node %d (ordinal 1)", ids[1])) {
		t.Fatalf("LeftBeforeDecommission = %q, want only ordinal 1", got)
	}
}
