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
//  0. the pool whose broker is being restarted (status.restart) goes on with it: one broker
//     at a time across every pool, and a move waits for the restart, as a scale-down does;
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
//  5. once no move is under way, the first pool with a pod the scheduler cannot place: its
//     broker may be on a node that is gone (lostnodes.go), whose recovery comes before any
//     restart, as for a cluster without pools;
//  6. once no move is under way, the first pool with a pod to restart (its template changed,
//     a cluster property needs it, or someone asked): a rollout waits for a move, whose new
//     pods are made from the current template anyway, and then restarts each pool's brokers
//     in turn. The pool of the controller leader goes last, so that, with the leader last
//     within its pool (brokers/observe.go), the leader restarts last across the cluster;
//  7. a cluster with nothing to do is looked at through the default pool.
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
	// Restarting: the broker being restarted (status.restart) is one of this pool's.
	Restarting bool
	// Outdated is how many of the pool's pods below Current wait for a restart.
	Outdated int
	// Leader: one of the pool's pods runs the controller leader, as far as it is known.
	Leader bool
	// Unschedulable: a pod of the pool below Current is one the scheduler cannot place.
	Unschedulable bool
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
	// Rollout: the pool's rollout is looked at, as for a cluster without pools. False while a
	// move is under way and no broker is being restarted: the pool's pods are then not
	// restarted.
	Rollout bool
	// LostNodes: the pool's brokers whose node may be gone are looked for. True for the pool
	// picked for a pod the scheduler cannot place, and, when no pool has one, for the pool
	// picked with nothing under way (so that status forgets what it recorded).
	LostNodes bool
}

// Moving reports whether a move between pools is under way: a pool's C differs from its D,
// or a broker is being decommissioned.
func Moving(pools []PoolState) bool {
	for _, p := range pools {
		if p.Current != p.Desired || p.Decommissioning {
			return true
		}
	}
	return false
}

// PlanPools names the pool decide looks at, from pools in their order: the default pool, the
// pools of spec.pools in their order, then the pools removed from it whose brokers are still
// there.
func PlanPools(pools []PoolState) PoolPlan {
	if len(pools) == 0 {
		return PoolPlan{Pool: DefaultPool, Rollout: true}
	}
	for _, p := range pools {
		if p.Restarting {
			return PoolPlan{Pool: p.Name, Rollout: true}
		}
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
	// From here no pool has a pod the scheduler cannot place, or the first that has is picked:
	// the lost brokers looked for are all the cluster's.
	for _, p := range pools {
		if p.Unschedulable {
			return PoolPlan{Pool: p.Name, Rollout: true, LostNodes: true}
		}
	}
	if p, ok := nextToRoll(pools); ok {
		return PoolPlan{Pool: p.Name, Rollout: true, LostNodes: true}
	}
	for _, p := range pools {
		if p.Name == DefaultPool {
			return PoolPlan{Pool: p.Name, Rollout: true, LostNodes: true}
		}
	}
	return PoolPlan{Pool: pools[0].Name, Rollout: true, LostNodes: true}
}

// nextToRoll is the first pool with a pod to restart, the controller leader's pool last.
func nextToRoll(pools []PoolState) (PoolState, bool) {
	var leaders []PoolState
	for _, p := range pools {
		switch {
		case p.Outdated == 0:
		case p.Leader:
			leaders = append(leaders, p)
		default:
			return p, true
		}
	}
	if len(leaders) > 0 {
		return leaders[0], true
	}
	return PoolState{}, false
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

// Brokers is how many brokers the cluster is meant to run now: C of the pool looked at, and,
// with pools, every other pool's C. A pool of one broker is no cluster of one.
func (o Observation) Brokers() int32 {
	n := o.Current
	for _, p := range o.Elsewhere.Pools {
		n += p.Current
	}
	return n
}

// ClusterBrokers is Observation.Brokers of bc, the BrokerCluster or a focus view of it: with
// pools, the sum of every pool's C as status.pools lists them (a focus view lists each pool's;
// its top-level C is the focus pool's).
func ClusterBrokers(bc *v1alpha1.BrokerCluster) int32 {
	if !HasPools(bc) || len(bc.Status.Pools) == 0 {
		return bc.Status.CurrentReplicas
	}
	var n int32
	for _, p := range bc.Status.Pools {
		n += p.Replicas
	}
	return n
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
