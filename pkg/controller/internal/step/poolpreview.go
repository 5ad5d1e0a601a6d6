package step

import (
	"slices"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The disruption preview of a cluster with pools: each pool's preview (Preview, made on the
// pool's focus view), put in the order PlanPools takes them. What is under way comes first;
// then a move's decommissions, pool by pool in the pools' order, each highest ordinal first; then
// the restarts, which wait for the move, pool by pool with the controller leader's pool last.
// A pool's own entries keep the order its preview gave them, each reason saying its pool.

// PoolPreview is one pool's preview, and whether its pods run the controller leader.
type PoolPreview struct {
	Pool    string
	Leader  bool
	Preview *v1alpha1.DisruptionPreview
}

// ComposePoolsPreview is the preview of bc, a cluster with pools, from each pool's, in pools'
// order (PoolsOf).
func ComposePoolsPreview(bc *v1alpha1.BrokerCluster, pools []PoolPreview) *v1alpha1.DisruptionPreview {
	out := &v1alpha1.DisruptionPreview{ObservedGeneration: bc.Generation}
	take := func(p PoolPreview, keep func(v1alpha1.PlannedDisruption) bool) {
		if p.Preview == nil {
			return
		}
		for _, d := range p.Preview.Disruptions {
			if keep(d) {
				// A restart under way keeps the reason the last preview gave it, which says its
				// pool already (restartUnderWay).
				if prefix := "pool " + p.Pool + ": "; !strings.HasPrefix(d.Reason, prefix) {
					d.Reason = prefix + d.Reason
				}
				out.Disruptions = append(out.Disruptions, d)
			}
		}
	}
	for _, p := range pools {
		take(p, func(d v1alpha1.PlannedDisruption) bool { return d.UnderWay })
	}
	for _, p := range pools {
		take(p, func(d v1alpha1.PlannedDisruption) bool {
			return !d.UnderWay && d.Action == v1alpha1.DisruptionDecommission
		})
	}
	restarts := func(d v1alpha1.PlannedDisruption) bool {
		return !d.UnderWay && d.Action != v1alpha1.DisruptionDecommission
	}
	for _, p := range pools {
		if !p.Leader {
			take(p, restarts)
		}
	}
	for _, p := range pools {
		if p.Leader {
			take(p, restarts)
		}
	}
	for _, p := range pools {
		if p.Preview == nil {
			continue
		}
		if out.ControllerLeader == nil && p.Preview.ControllerLeader != nil {
			leader := *p.Preview.ControllerLeader
			out.ControllerLeader = &leader
		}
		for _, n := range p.Preview.Notes {
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
	}
	if len(out.Disruptions) == 0 {
		out.ControllerLeader = nil
	}
	return out
}
