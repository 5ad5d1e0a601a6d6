package step

import (
	"slices"

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

// FocusStatus is bc's status as a reconcile that looks at pool sees it: C is the pool's, and
// B is set only when its broker is the pool's.
func FocusStatus(bc *v1alpha1.BrokerCluster, pool string) v1alpha1.BrokerClusterStatus {
	st := *bc.Status.DeepCopy()
	st.CurrentReplicas = PoolCurrent(bc, pool)
	if DecommissioningPool(bc) != pool {
		st.DecommissioningBroker = nil
	}
	return st
}

// PoolCounts are one pool's pods, for its status.pools entry.
type PoolCounts struct {
	Ready, Updated int32
}

// MergeFocusStatus folds next, the status a step wrote while looking at pool (FocusStatus
// changed by NextStatus), into bc's whole status: the pool's C and B go to its status.pools
// entry (and, for the default pool, to the top-level fields), a broker another pool is
// decommissioning stays recorded, and every pool of PoolsOf gets an entry with its counts. A
// removed pool whose brokers are all gone is dropped.
func MergeFocusStatus(bc *v1alpha1.BrokerCluster, pool string, next v1alpha1.BrokerClusterStatus, counts map[string]PoolCounts) v1alpha1.BrokerClusterStatus {
	out := *next.DeepCopy()
	if pool != DefaultPool {
		out.CurrentReplicas = bc.Status.CurrentReplicas
		out.ReadyReplicas = counts[DefaultPool].Ready
		out.UpdatedReplicas = counts[DefaultPool].Updated
	}
	owner := DecommissioningPool(bc)
	if owner != "" && owner != pool {
		out.DecommissioningBroker = bc.Status.DecommissioningBroker
	} else if next.DecommissioningBroker != nil {
		owner = pool
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
		if name == owner && out.DecommissioningBroker != nil {
			b := *out.DecommissioningBroker
			e.DecommissioningBroker = &b
		}
		c := counts[name]
		e.ReadyReplicas, e.UpdatedReplicas = c.Ready, c.Updated
		if e.Replicas == 0 && e.DecommissioningBroker == nil && PoolDesired(bc, name) == 0 && !specNames(bc, name) && name != DefaultPool {
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
