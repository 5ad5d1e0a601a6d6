package brokersim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// hasPools reports whether bc is a cluster with named pools: in its spec, its status, its
// running Pods or its brokers. A pool removed from the spec still counts while anything of it is
// left.
func hasPools(bc *v1alpha1.BrokerCluster, running map[string][]int, brokers []admintest.BrokerState) bool {
	if len(bc.Spec.Pools) > 0 {
		return true
	}
	for _, p := range bc.Status.Pools {
		if p.Name != v1alpha1.DefaultPoolName {
			return true
		}
	}
	for pool := range running {
		if pool != "" {
			return true
		}
	}
	for _, b := range brokers {
		if b.Pool != "" {
			return true
		}
	}
	return false
}

// convergedPools judges a cluster with pools, pool by pool ("" the default pool, at target):
// the operator has observed the spec and decommissions or restarts nothing, in any pool; each
// pool's status.pools entry says its spec replicas (a pool removed from spec.pools, or left at
// 0, wants 0: no entry, or one of zeros), ready and updated; exactly its Pods 0..n-1 run a
// broker, each an active member; and no other broker is a member: none draining, no ghost.
// status.currentReplicas, readyReplicas and updatedReplicas are not judged: status.pools says
// the same pool by pool.
func convergedPools(bc *v1alpha1.BrokerCluster, target int32, running map[string][]int, brokers []admintest.BrokerState) (bool, string) {
	st := bc.Status
	if bc.Spec.Replicas != target || st.ObservedGeneration != bc.Generation || st.DecommissioningBroker != nil || st.Restart != nil {
		return false, fmt.Sprintf("spec %d, generation %d observed %d, decommissioning %s, restarting %v",
			bc.Spec.Replicas, bc.Generation, st.ObservedGeneration, brokerString(st.DecommissioningBroker), st.Restart)
	}
	want := wantedPools(bc, target, running, brokers)
	statuses := map[string]v1alpha1.PoolStatus{}
	for _, p := range st.Pools {
		pool := p.Name
		if pool == v1alpha1.DefaultPoolName {
			pool = ""
		}
		statuses[pool] = p
	}
	total := 0
	for _, pool := range slices.Sorted(maps.Keys(want)) {
		n := want[pool]
		total += int(n)
		if why := poolProblem(pool, n, statuses, running[pool], brokers); why != "" {
			return false, why
		}
	}
	var others []string
	for _, b := range brokers {
		if b.Status != admin.MembershipRemoved && !(b.PodRunning && b.Status == admin.MembershipActive) {
			others = append(others, fmt.Sprintf("node %d (pool %s ordinal %d) %s", b.NodeID, statusPool(b.Pool), b.Ordinal, b.Status))
		}
	}
	if len(others) > 0 {
		return false, fmt.Sprintf("brokers beyond the %d wanted: %v", total, others)
	}
	return true, ""
}

// wantedPools is each pool's spec replicas: the default pool's target, each of spec.pools its
// replicas, and 0 for any other pool status, Pods or brokers still name.
func wantedPools(bc *v1alpha1.BrokerCluster, target int32, running map[string][]int, brokers []admintest.BrokerState) map[string]int32 {
	want := map[string]int32{"": target}
	for _, p := range bc.Spec.Pools {
		want[p.Name] = p.Replicas
	}
	gone := func(pool string) {
		if _, ok := want[pool]; !ok {
			want[pool] = 0
		}
	}
	for _, p := range bc.Status.Pools {
		if p.Name != v1alpha1.DefaultPoolName {
			gone(p.Name)
		}
	}
	for pool := range running {
		gone(pool)
	}
	for _, b := range brokers {
		if b.Status != admin.MembershipRemoved && b.Ordinal >= 0 {
			gone(b.Pool)
		}
	}
	return want
}

// poolProblem says what keeps one pool from being steady at n brokers, or "".
func poolProblem(pool string, n int32, statuses map[string]v1alpha1.PoolStatus, running []int, brokers []admintest.BrokerState) string {
	name := statusPool(pool)
	ps, listed := statuses[pool]
	if (n > 0 && !listed) || ps.Replicas != n || ps.ReadyReplicas != n || ps.UpdatedReplicas != n || ps.DecommissioningBroker != nil {
		return fmt.Sprintf("pool %s: status listed %t, replicas %d, ready %d, updated %d, decommissioning %s; want %d",
			name, listed, ps.Replicas, ps.ReadyReplicas, ps.UpdatedReplicas, brokerString(ps.DecommissioningBroker), n)
	}
	if len(running) != int(n) || (n > 0 && running[n-1] != int(n)-1) {
		return fmt.Sprintf("pool %s: broker pods %v, want ordinals 0 to %d", name, running, n-1)
	}
	active := 0
	for _, b := range brokers {
		if b.Pool == pool && b.PodRunning && b.Status == admin.MembershipActive {
			active++
		}
	}
	if active != int(n) {
		return fmt.Sprintf("pool %s: %d active brokers, want %d", name, active, n)
	}
	return ""
}

// brokerString writes an optional broker ID, "none" when absent.
func brokerString(id *int32) string {
	if id == nil {
		return "none"
	}
	return fmt.Sprint(*id)
}
