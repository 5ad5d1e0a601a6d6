package step

import "slices"

// The seeds of a cluster with pools (objects/seeds.go keeps them in a ConfigMap). A fresh broker
// asks its seeds to register it, so a seed must be a live member: a seed whose pod is gone
// leaves a fresh broker that can never join, and a list of fresh brokers alone founds a second
// cluster (redpanda src/v/cluster/cluster_discovery.cc). ChooseSeeds names the members that are
// active and alive, never the broker being decommissioned nor a pod above its pool's C; of
// those, the brokers that stay (below their pool's D) when there are any, so that a move's seeds
// go over to the new pool once its brokers have joined, and the old pool's only while it has
// the cluster's only members. It names nothing when no member qualifies: the seeds then stay
// as they are, for a seed list is never left empty.

// SeedCandidate is one pod whose broker the admin API lists, as the seed choice sees it.
type SeedCandidate struct {
	// Host is the pod's stable host name, which the seed list names.
	Host string
	// Pool and Ordinal are the pod's.
	Pool    string
	Ordinal int32
	// ID is its broker's node ID; Active and Alive what the members list says of it.
	ID            int32
	Active, Alive bool
}

// ChooseSeeds names the seed hosts among candidates, given the pools (their D and C) and the
// broker being decommissioned (nil for none), in a stable order; nil when none qualifies.
func ChooseSeeds(candidates []SeedCandidate, pools []PoolState, decommissioning *int32) []string {
	byName := map[string]PoolState{}
	for _, p := range pools {
		byName[p.Name] = p
	}
	var live, staying []string
	for _, c := range candidates {
		p, known := byName[c.Pool]
		if !known || !c.Active || !c.Alive || c.Ordinal >= p.Current || (decommissioning != nil && *decommissioning == c.ID) {
			continue
		}
		live = append(live, c.Host)
		if c.Ordinal < p.Desired {
			staying = append(staying, c.Host)
		}
	}
	out := live
	if len(staying) > 0 {
		out = staying
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}
