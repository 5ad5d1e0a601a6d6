package brokersim

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// movedCluster is a cluster steady after a move: the default pool at 0, pool blue at 3.
func movedCluster() *v1alpha1.BrokerCluster {
	bc := steadyCluster(0)
	bc.Spec.Pools = []v1alpha1.BrokerPool{{Name: "blue", Replicas: 3}}
	bc.Status.Pools = []v1alpha1.PoolStatus{
		{Name: v1alpha1.DefaultPoolName},
		{Name: "blue", Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3},
	}
	return bc
}

func poolBrokers(pool string, firstID int, ordinals ...int) []admintest.BrokerState {
	var out []admintest.BrokerState
	for _, o := range ordinals {
		out = append(out, admintest.BrokerState{NodeID: firstID + o, Pool: pool, Ordinal: o, Status: admin.MembershipActive, PodRunning: true})
	}
	return out
}

func TestConvergedWithPools(t *testing.T) {
	blue := poolBrokers("blue", 200, 0, 1, 2)
	blueRunning := map[string][]int{"blue": {0, 1, 2}}
	for _, tc := range []struct {
		name    string
		change  func(bc *v1alpha1.BrokerCluster)
		target  int32
		running map[string][]int
		brokers []admintest.BrokerState
		why     string // "" when converged
	}{
		{name: "moved to blue", running: blueRunning, brokers: blue},
		{name: "removed brokers do not count", running: blueRunning,
			brokers: append(slices.Clone(blue), admintest.BrokerState{NodeID: 100, Ordinal: 0, Status: admin.MembershipRemoved})},
		{name: "a pool at 0 may drop its status entry", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.Pools = bc.Status.Pools[1:] },
			running: blueRunning, brokers: blue},
		{name: "status.currentReplicas is not judged", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.CurrentReplicas = 3 },
			running: blueRunning, brokers: blue},
		{name: "both pools running", target: 2,
			change: func(bc *v1alpha1.BrokerCluster) {
				bc.Spec.Replicas = 2
				bc.Status.Pools[0] = v1alpha1.PoolStatus{Name: v1alpha1.DefaultPoolName, Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2}
			},
			running: map[string][]int{"": {0, 1}, "blue": {0, 1, 2}}, brokers: append(activeBrokers(0, 1), blue...)},
		{name: "spec not observed", change: func(bc *v1alpha1.BrokerCluster) { bc.Generation = 5 },
			running: blueRunning, brokers: blue, why: "generation 5 observed 4"},
		{name: "the old pool's pod still runs", running: map[string][]int{"": {0}, "blue": {0, 1, 2}},
			brokers: append(activeBrokers(0), blue...), why: "pool default: broker pods [0]"},
		{name: "a pool not ready", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.Pools[1].ReadyReplicas = 2 },
			running: blueRunning, brokers: blue, why: "pool blue: status listed true, replicas 3, ready 2"},
		{name: "a pool missing from status", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.Pools = bc.Status.Pools[:1] },
			running: blueRunning, brokers: blue, why: "pool blue: status listed false"},
		{name: "a pool decommissioning", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.Pools[0].DecommissioningBroker = ptr.To[int32](100) },
			running: blueRunning, brokers: blue, why: "pool default: status listed true, replicas 0, ready 0, updated 0, decommissioning 100"},
		{name: "a pool's broker down", running: blueRunning,
			brokers: append(poolBrokers("blue", 200, 0, 1), admintest.BrokerState{NodeID: 202, Pool: "blue", Ordinal: 2, Status: admin.MembershipActive}),
			why:     "pool blue: 2 active brokers, want 3"},
		{name: "the old pool's broker still draining", running: blueRunning,
			brokers: append(slices.Clone(blue), admintest.BrokerState{NodeID: 100, Ordinal: 0, Status: admin.MembershipDraining}),
			why:     "node 100 (pool default ordinal 0) draining"},
		{name: "a ghost", running: blueRunning,
			brokers: append(slices.Clone(blue), admintest.BrokerState{NodeID: 300, Ordinal: -1, Status: admin.MembershipActive}),
			why:     "node 300 (pool default ordinal -1) active"},
		{name: "a pool removed from spec still running", running: map[string][]int{"blue": {0, 1, 2}, "green": {0}},
			brokers: append(slices.Clone(blue), poolBrokers("green", 300, 0)...), why: "pool green: broker pods [0], want ordinals 0 to -1"},
		{name: "a pool removed from spec still in status", running: blueRunning, brokers: blue,
			change: func(bc *v1alpha1.BrokerCluster) {
				bc.Status.Pools = append(bc.Status.Pools, v1alpha1.PoolStatus{Name: "green", Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1})
			},
			why: "pool green: status listed true, replicas 1"},
		// c-0 and c-blue-0 are two pods: blue's broker at ordinal 0 is not the default pool's.
		{name: "ordinals are per pool", target: 1,
			change: func(bc *v1alpha1.BrokerCluster) {
				bc.Spec.Replicas = 1
				bc.Spec.Pools[0].Replicas = 1
				bc.Status.Pools = []v1alpha1.PoolStatus{
					{Name: v1alpha1.DefaultPoolName, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1},
					{Name: "blue", Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1},
				}
			},
			running: map[string][]int{"": {0}, "blue": {0}},
			brokers: append(poolBrokers("blue", 200, 0), admintest.BrokerState{NodeID: 100, Ordinal: 0, Status: admin.MembershipActive}),
			why:     "pool default: 0 active brokers, want 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bc := movedCluster()
			if tc.change != nil {
				tc.change(bc)
			}
			if !hasPools(bc, tc.running, tc.brokers) {
				t.Fatal("a cluster with spec.pools is not judged as one with pools")
			}
			ok, why := convergedPools(bc, tc.target, tc.running, tc.brokers)
			if ok != (tc.why == "") || !strings.Contains(why, tc.why) {
				t.Errorf("converged = %t, %q; want %t with %q", ok, why, tc.why == "", tc.why)
			}
		})
	}
}

// A cluster without pools is judged as it always was, even with its default pool in
// status.pools; anything of a named pool left makes it one with pools.
func TestHasPools(t *testing.T) {
	plain := steadyCluster(3)
	plain.Status.Pools = []v1alpha1.PoolStatus{{Name: v1alpha1.DefaultPoolName, Replicas: 3}}
	if hasPools(plain, map[string][]int{"": {0, 1, 2}}, activeBrokers(0, 1, 2)) {
		t.Error("a cluster without pools taken for one with pools")
	}
	if !hasPools(plain, map[string][]int{"": {0, 1, 2}}, append(activeBrokers(0, 1, 2), poolBrokers("blue", 200, 0)...)) {
		t.Error("a broker of a removed pool left, and the cluster is not judged by pool")
	}
	if !hasPools(plain, map[string][]int{"": {0, 1, 2}, "blue": {0}}, activeBrokers(0, 1, 2)) {
		t.Error("a Pod of a removed pool runs, and the cluster is not judged by pool")
	}
}
