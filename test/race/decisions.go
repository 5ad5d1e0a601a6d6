package race

import (
	"fmt"
	"maps"
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

// maintenanceOverlaps replays a cluster's maintenance calls and names each time a broker was put
// into maintenance mode while another one was (a second restart begun before the first ended),
// and each maintenance call the brokers refused: Redpanda allows one broker in maintenance at a
// time (members_table.cc), so a refusal means the operator tried a second one.
func maintenanceOverlaps(c *admintest.Cluster, name string) (int, []string) {
	var out []string
	on := map[int]bool{}
	for _, call := range c.Calls() {
		if call.Path != fmt.Sprintf("/v1/brokers/%d/maintenance", call.NodeID) || call.Method == "GET" || call.Status == 0 {
			continue
		}
		if call.Status != 200 {
			out = append(out, fmt.Sprintf("%s: maintenance call refused: %s", name, call))
			continue
		}
		if call.Method == "DELETE" {
			delete(on, call.NodeID)
			continue
		}
		for _, other := range slices.Sorted(maps.Keys(on)) {
			if other != call.NodeID {
				out = append(out, fmt.Sprintf("%s: broker %d into maintenance while broker %d was", name, call.NodeID, other))
			}
		}
		on[call.NodeID] = true
	}
	return len(out), out
}
