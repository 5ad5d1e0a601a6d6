package step

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A cluster's pools in its status. The top-level status fields a cluster had before pools
// (currentReplicas, readyReplicas, updatedReplicas, the scale subresource's) stay the default
// pool's; status.pools has every pool, the default one as "default", and a pool removed from
// spec.pools stays listed until its brokers are gone. status.decommissioningBroker is the one
// broker being decommissioned across every pool, and its pool's entry names it too.

// HasPools reports whether bc is a cluster with pools: spec.pools names one, or status.pools
// still lists a named pool whose brokers are leaving. A cluster without pools decides,
// writes and renders exactly as before pools.
func HasPools(bc *v1alpha1.BrokerCluster) bool {
	if len(bc.Spec.Pools) > 0 {
		return true
	}
	for _, p := range bc.Status.Pools {
		if p.Name != DefaultPool {
			return true
		}
	}
	return false
}

// PoolsOf names bc's pools in their order: the default pool, spec.pools in theirs, then the
// pools status.pools lists that the spec no longer names, by name.
func PoolsOf(bc *v1alpha1.BrokerCluster) []string {
	out := []string{DefaultPool}
	for _, p := range bc.Spec.Pools {
		out = append(out, p.Name)
	}
	var removed []string
	for _, p := range bc.Status.Pools {
		if !slices.Contains(out, p.Name) {
			removed = append(removed, p.Name)
		}
	}
	slices.Sort(removed)
	return append(out, removed...)
}

// PoolDesired is D of bc's pool: spec.replicas for the default pool, the pool's replicas for a
// named one, 0 for a pool the spec no longer names.
func PoolDesired(bc *v1alpha1.BrokerCluster, pool string) int32 {
	if pool == DefaultPool {
		return bc.Spec.Replicas
	}
	for _, p := range bc.Spec.Pools {
		if p.Name == pool {
			return p.Replicas
		}
	}
	return 0
}

// PoolCurrent is C of bc's pool: status.currentReplicas for the default pool, the pool's
// status.pools replicas for a named one (0 before it has an entry).
func PoolCurrent(bc *v1alpha1.BrokerCluster, pool string) int32 {
	if pool == DefaultPool {
		return bc.Status.CurrentReplicas
	}
	if e := poolEntry(bc.Status.Pools, pool); e != nil {
		return e.Replicas
	}
	return 0
}

// DecommissioningPool is the pool whose broker is being decommissioned: the pool whose
// status.pools entry names status.decommissioningBroker, the default pool when none does (a
// cluster without pools); "" when no broker is.
func DecommissioningPool(bc *v1alpha1.BrokerCluster) string {
	b := bc.Status.DecommissioningBroker
	if b == nil {
		return ""
	}
	for _, p := range bc.Status.Pools {
		if p.DecommissioningBroker != nil && *p.DecommissioningBroker == *b {
			return p.Name
		}
	}
	return DefaultPool
}

// RestartPool is the pool whose pod status.restart names: <cluster>-<ordinal> is the default
// pool's, <cluster>-<pool>-<ordinal> a named pool's (a pool's name starts with a letter, so
// the two never meet); "" when no broker is being restarted.
func RestartPool(bc *v1alpha1.BrokerCluster) string {
	r := bc.Status.Restart
	if r == nil {
		return ""
	}
	for _, pool := range PoolsOf(bc) {
		set := bc.Name
		if pool != DefaultPool {
			set += "-" + pool
		}
		if r.Pod == fmt.Sprintf("%s-%d", set, r.Ordinal) {
			return pool
		}
	}
	return DefaultPool
}

// FocusStatus is bc's status as a reconcile that looks at pool sees it: C is the pool's, and
// B and R are set only when their broker is the pool's.
func FocusStatus(bc *v1alpha1.BrokerCluster, pool string) v1alpha1.BrokerClusterStatus {
	st := *bc.Status.DeepCopy()
	st.CurrentReplicas = PoolCurrent(bc, pool)
	if DecommissioningPool(bc) != pool {
		st.DecommissioningBroker = nil
	}
	if RestartPool(bc) != pool {
		st.Restart = nil
	}
	if pool != DefaultPool {
		st.Storage = nil // a named pool's growth is its status.pools entry's
		if e := poolEntry(bc.Status.Pools, pool); e != nil && e.Storage != nil {
			st.Storage = e.Storage.DeepCopy()
		}
	}
	return st
}

// PoolCounts are one pool's pods, for its status.pools entry. Gone: the pool has no
// StatefulSet and no pod left.
type PoolCounts struct {
	Ready, Updated int32
	Gone           bool
}

// MergeFocusStatus folds next, the status a step wrote while looking at pool (FocusStatus
// changed by NextStatus), into bc's whole status: the pool's C and B go to its status.pools
// entry (and, for the default pool, to the top-level fields), a broker another pool is
// decommissioning or restarting stays recorded, and every pool of PoolsOf gets an entry with
// its counts. A pool removed from the spec is dropped once it has no broker and its objects are
// gone: until then its entry is how the operator knows to drain it and delete them.
func MergeFocusStatus(bc *v1alpha1.BrokerCluster, pool string, next v1alpha1.BrokerClusterStatus, counts map[string]PoolCounts) v1alpha1.BrokerClusterStatus {
	out := *next.DeepCopy()
	if pool != DefaultPool {
		out.CurrentReplicas = bc.Status.CurrentReplicas
		out.ReadyReplicas = counts[DefaultPool].Ready
		out.UpdatedReplicas = counts[DefaultPool].Updated
		out.UpdateRevision = bc.Status.UpdateRevision
		out.Storage = bc.Status.Storage
	}
	owner := DecommissioningPool(bc)
	if owner != "" && owner != pool {
		out.DecommissioningBroker = bc.Status.DecommissioningBroker
	} else if next.DecommissioningBroker != nil {
		owner = pool
	}
	if restarting := RestartPool(bc); restarting != "" && restarting != pool {
		out.Restart = bc.Status.Restart.DeepCopy()
	}
	out.Pools = nil
	for _, name := range PoolsOf(bc) {
		e := v1alpha1.PoolStatus{Name: name, Replicas: PoolCurrent(bc, name)}
		if name == pool {
			e.Replicas = next.CurrentReplicas
		}
		if name == DefaultPool {
			e.Replicas = out.CurrentReplicas
		}
		if old := poolEntry(bc.Status.Pools, name); old != nil && name != DefaultPool {
			e.Storage = old.Storage
		}
		if name == owner && out.DecommissioningBroker != nil {
			b := *out.DecommissioningBroker
			e.DecommissioningBroker = &b
		}
		c := counts[name]
		e.ReadyReplicas, e.UpdatedReplicas = c.Ready, c.Updated
		if e.Replicas == 0 && e.DecommissioningBroker == nil && c.Gone && !specNames(bc, name) && name != DefaultPool {
			continue
		}
		out.Pools = append(out.Pools, e)
	}
	return out
}

// specNames reports whether bc's spec names pool.
func specNames(bc *v1alpha1.BrokerCluster, pool string) bool {
	return slices.ContainsFunc(bc.Spec.Pools, func(p v1alpha1.BrokerPool) bool { return p.Name == pool })
}

func poolEntry(pools []v1alpha1.PoolStatus, name string) *v1alpha1.PoolStatus {
	for i := range pools {
		if pools[i].Name == name {
			return &pools[i]
		}
	}
	return nil
}

// PoolConditions sets the Ready, Scaling and Restarting conditions of st, the whole status of
// bc, a cluster with pools, after step s: they speak of every pool, where NextStatus spoke of
// the one pool the step looked at. Scaling is true while a pool's C differs from its D, a
// broker is being decommissioned or a pool's shrink is held; Ready once every pool has its D
// brokers ready and nothing scales.
func PoolConditions(bc *v1alpha1.BrokerCluster, s Step, st *v1alpha1.BrokerClusterStatus, now time.Time) {
	var parts []string
	up, down := false, false
	var ready, desired int32
	for _, p := range st.Pools {
		d := PoolDesired(bc, p.Name)
		ready, desired = ready+min(p.ReadyReplicas, d), desired+d
		up, down = up || p.Replicas < d, down || p.Replicas > d
		parts = append(parts, fmt.Sprintf("pool %s %d of %d", p.Name, p.Replicas, d))
	}
	st.PoolsSummary = poolsSummary(bc, st.Pools)
	scaling := metav1.Condition{Type: v1alpha1.ConditionScaling, Status: metav1.ConditionFalse, Reason: ReasonSteady,
		Message: "every pool has its brokers: " + strings.Join(parts, ", ")}
	switch {
	case up || down || st.DecommissioningBroker != nil || s.Kind == WaitForJoiningBrokers:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		if up {
			scaling.Reason = ReasonScalingUp
		}
		scaling.Message = "moving brokers between pools: " + strings.Join(parts, ", ")
		if b := st.DecommissioningBroker; b != nil {
			scaling.Message += fmt.Sprintf("; decommissioning broker %d of pool %s", *b, DecommissioningPool(&v1alpha1.BrokerCluster{Status: *st}))
		}
		if s.Kind == WaitForJoiningBrokers || s.Kind == HoldScaleDown || s.Kind == WaitForMaintenanceWindow || s.Kind == WaitForHealthyCluster {
			scaling.Message += "; " + s.Reason
		}
	}
	readyCond := metav1.Condition{Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonBrokersNotReady,
		Message: fmt.Sprintf("%d of %d brokers ready", ready, desired)}
	if ready == desired && scaling.Status == metav1.ConditionFalse {
		readyCond.Status, readyCond.Reason = metav1.ConditionTrue, ReasonAllBrokersReady
	}
	restarting := poolsRestarting(s, st, up || down || st.DecommissioningBroker != nil)
	at := metav1.NewTime(now)
	for _, c := range []metav1.Condition{readyCond, scaling, restarting} {
		c.ObservedGeneration, c.LastTransitionTime = bc.Generation, at
		meta.SetStatusCondition(&st.Conditions, c)
	}
}

// poolsRestarting is the Restarting condition of a cluster with pools: the one NextStatus set
// for the pool looked at while a broker is being restarted or the rollout waits on something it
// names, otherwise what every pool's pods say; while a move is under way, that the restarts
// wait for it.
func poolsRestarting(s Step, st *v1alpha1.BrokerClusterStatus, moving bool) metav1.Condition {
	var parts []string
	for _, p := range st.Pools {
		if p.UpdatedReplicas < p.Replicas {
			parts = append(parts, fmt.Sprintf("pool %s %d of %d", p.Name, p.UpdatedReplicas, p.Replicas))
		}
	}
	focus := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionRestarting)
	updated := metav1.Condition{Type: v1alpha1.ConditionRestarting, Status: metav1.ConditionFalse, Reason: ReasonAllUpdated,
		Message: "every pool's brokers run its current pod template"}
	switch {
	case st.Restart != nil && focus != nil:
		return *focus
	case moving && len(parts) == 0:
		return updated
	case moving:
		return metav1.Condition{Type: v1alpha1.ConditionRestarting, Status: metav1.ConditionTrue, Reason: ReasonRollingOut,
			Message: "a change that needs a restart waits for the move between pools to finish: updated " + strings.Join(parts, ", ")}
	case focus != nil && focus.Status == metav1.ConditionTrue && len(parts) == 0:
		return *focus // a restart for a cluster property, which no template tells
	case len(parts) == 0:
		return updated
	case focus != nil && focus.Status == metav1.ConditionTrue && (s.Kind == WaitForReadyBrokers || s.Kind == HoldVersionChange || s.Kind == HoldForSuperuser || s.Kind == WaitForMaintenanceWindow):
		return *focus
	}
	return metav1.Condition{Type: v1alpha1.ConditionRestarting, Status: metav1.ConditionTrue, Reason: ReasonRollingOut,
		Message: "rolling out a change that needs a restart, one broker at a time across the pools: updated " + strings.Join(parts, ", ")}
}

// poolsSummary is status.poolsSummary: each pool's C and D, "default 1/0, blue 3/3".
func poolsSummary(bc *v1alpha1.BrokerCluster, pools []v1alpha1.PoolStatus) string {
	parts := make([]string, 0, len(pools))
	for _, p := range pools {
		parts = append(parts, fmt.Sprintf("%s %d/%d", p.Name, p.Replicas, PoolDesired(bc, p.Name)))
	}
	return strings.Join(parts, ", ")
}
