package race

import (
	"fmt"
	"slices"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// mark is when the harness set a cluster's spec.replicas, and to what.
type mark struct {
	at     time.Time
	target int32
}

// clusterRun is what happened to one cluster of a row.
type clusterRun struct {
	name  string
	marks []mark
	// bringUp is how long the cluster took to be first ready; steps are the convergence times
	// of the scaling steps.
	bringUp time.Duration
	steps   []time.Duration
	// stuck says why the cluster did not converge on a step in time; "" if it always did.
	stuck string
}

// untargeted counts the decommission calls that reached a cluster for a broker whose pod ordinal
// was below what the cluster was being scaled to: during a step, brokers at or above the smaller
// of the step's target and the one before it may go, none below.
func untargeted(c *admintest.Cluster, run clusterRun) (int, []string) {
	ordinals := map[int]int{}
	for _, b := range c.Brokers() {
		ordinals[b.NodeID] = b.Ordinal
	}
	var out []string
	for _, call := range c.Calls() {
		if call.Method != "PUT" || call.Status == 0 || call.Path != fmt.Sprintf("/v1/brokers/%d/decommission", call.NodeID) {
			continue
		}
		i := -1
		for j, m := range run.marks {
			if !m.at.After(call.At) {
				i = j
			}
		}
		if i < 0 {
			out = append(out, fmt.Sprintf("%s: decommission of node %d before the cluster was created", run.name, call.NodeID))
			continue
		}
		floor := run.marks[i].target
		if i > 0 {
			floor = min(floor, run.marks[i-1].target)
		}
		if ordinal, ok := ordinals[call.NodeID]; ok && ordinal < int(floor) {
			out = append(out, fmt.Sprintf("%s: decommission of node %d (ordinal %d) while scaling to %d", run.name, call.NodeID, ordinal, run.marks[i].target))
		}
	}
	return len(out), out
}

// quantile returns the q-quantile (0..1) of ds, nearest rank.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
