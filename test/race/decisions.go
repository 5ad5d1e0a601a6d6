package race

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// clusterRun is what happened to one cluster of a row.
type clusterRun struct {
	name  string
	marks []harness.Mark
	// bringUp is how long the cluster took to be first ready; steps are the convergence times
	// of the scaling steps.
	bringUp time.Duration
	steps   []time.Duration
	// stuck says why the cluster did not converge on a step in time; "" if it always did.
	stuck string
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
