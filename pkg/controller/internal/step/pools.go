package step

import (
	"fmt"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The order of a move between pools. A pool is a dimension of the observation, not a copy of
// the step table: PlanPools picks the one pool decide looks at this reconcile, and the
// observation is then that pool's (its D, C, B and next broker to go), with the pre-flight
// counting the brokers every pool keeps. decide still returns one step for the whole cluster.
//
// The order, first rule that applies:
//  1. a pool with fewer brokers than desired grows (ScaleUp), or, when its broker is the one
//     being decommissioned, recommissions it: adding brokers takes nothing away, so it is
//     never held back by another pool's drain;
//  2. the pool whose broker is being decommissioned goes on with it: one broker at a time
//     across every pool;
//  3. a pool with more brokers than desired waits while a broker of another pool has not
//     joined yet (its pod not Ready, or its broker not an active member): a move's new
//     brokers join before the old ones leave, which Redpanda's documented node pool migration
//     leaves to a person (docs "Migrate Node Pools") and the v1 operator does not wait for
//     (redpanda-operator operator/pkg/resources/statefulset_scale.go). The reconcile then
//     looks at the pool still joining, so that its brokers are asked who they are, and takes
//     no step that takes a broker away (Hold);
//  4. otherwise that pool shrinks, one broker at a time, highest ordinal first;
//  5. a cluster whose pools all have their brokers is looked at through the default pool.
//
// With one pool, PlanPools always picks it and never holds: a cluster without spec.pools
// decides exactly as before.

// PoolState is what the order of a move rests on for one pool.
type PoolState struct {
	// Name is the pool's name, DefaultPool for the cluster's own fields.
	Name string
	// Desired is the pool's spec replicas; 0 for a pool removed from spec.pools.
	Desired int32
	// Current is the brokers the pool is meant to run now: status.pools[].replicas
	// (status.currentReplicas for the default pool).
	Current int32
	// Decommissioning: the broker being decommissioned (status.decommissioningBroker) is one
	// of this pool's.
	Decommissioning bool
	// Joining names the first of the pool's pods below Current that has not joined the cluster
	// yet, and JoiningWhy says why (not Ready, its broker not yet an active member); both empty
	// when every one has joined.
	Joining, JoiningWhy string
}

// DefaultPool names the pool made of the cluster's own fields.
const DefaultPool = v1alpha1.DefaultPoolName

// PoolPlan is the pool decide looks at this reconcile.
type PoolPlan struct {
	// Pool is the pool's name.
	Pool string
	// Hold, when set, says why a pool's shrink waits: a broker of another pool, the one
	// looked at, has not joined yet. The reconcile then takes no step that takes a broker
	// away (WaitForJoiningBrokers).
	Hold string
}

// PlanPools names the pool decide looks at, from pools in their order: the default pool, the
// pools of spec.pools in their order, then the pools removed from it whose brokers are still
// there.
func PlanPools(pools []PoolState) PoolPlan {
	if len(pools) == 0 {
		return PoolPlan{Pool: DefaultPool}
	}
	for _, p := range pools {
		if p.Current < p.Desired {
			return PoolPlan{Pool: p.Name}
		}
	}
	for _, p := range pools {
		if p.Decommissioning {
			return PoolPlan{Pool: p.Name}
		}
	}
	for _, p := range pools {
		if p.Current <= p.Desired {
			continue
		}
		if j, ok := joining(pools, p.Name); ok {
			return PoolPlan{Pool: j.Name, Hold: fmt.Sprintf("pool %s's brokers leave only once every other pool's have joined: pod %s of pool %s has not joined the cluster yet (%s)", p.Name, j.Joining, j.Name, j.JoiningWhy)}
		}
		return PoolPlan{Pool: p.Name}
	}
	for _, p := range pools {
		if p.Name == DefaultPool {
			return PoolPlan{Pool: p.Name}
		}
	}
	return PoolPlan{Pool: pools[0].Name}
}

// joining returns the first pool but the one named that has a broker still joining.
func joining(pools []PoolState, but string) (PoolState, bool) {
	for _, p := range pools {
		if p.Name != but && p.Joining != "" {
			return p, true
		}
	}
	return PoolState{}, false
}

// Elsewhere is what a reconcile of a cluster with pools knows of its pools other than the one
// decide looks at: the ghost check, a pod no member is left for, and the scale-down pre-flight
// count their brokers beside the pool's own. Empty for a cluster without pools.
type Elsewhere struct {
	Pools []OtherPool
	Pods  []PoolPod
}

// OtherPool is one of the other pools: its name, StatefulSet and D and C.
type OtherPool struct {
	Name, Set        string
	Desired, Current int32
}

// PoolPod is a pod of another pool, and the broker ID recorded on it, when IDKnown.
type PoolPod struct {
	Pool    string
	Ordinal int32
	ID      int32
	IDKnown bool
}
