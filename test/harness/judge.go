package harness

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// Mark is when the harness set a cluster's spec.replicas, and to what.
type Mark struct {
	At     time.Time
	Target int32
}

// Ordinals maps the node ID of each broker a simulated cluster ever ran to its pod ordinal.
func Ordinals(c *admintest.Cluster) map[int]int {
	out := map[int]int{}
	for _, b := range c.Brokers() {
		out[b.NodeID] = b.Ordinal
	}
	return out
}

// Untargeted lists the decommission requests that reached a cluster for a broker whose pod
// ordinal was below what the cluster was being scaled to: during a step, brokers at or above the
// smaller of the step's target and the one before it may go, none below. ordinals maps node IDs
// to pod ordinals (Ordinals); marks are the cluster's spec changes in order, the first its
// creation.
func Untargeted(cluster string, calls []admintest.Call, ordinals map[int]int, marks []Mark) []string {
	var out []string
	for _, call := range calls {
		if call.Method != http.MethodPut || call.Status == 0 || call.Path != fmt.Sprintf("/v1/brokers/%d/decommission", call.NodeID) {
			continue
		}
		i := -1
		for j, m := range marks {
			if !m.At.After(call.At) {
				i = j
			}
		}
		if i < 0 {
			out = append(out, fmt.Sprintf("%s: decommission of node %d before the cluster was created", cluster, call.NodeID))
			continue
		}
		floor := marks[i].Target
		if i > 0 {
			floor = min(floor, marks[i-1].Target)
		}
		if ordinal, ok := ordinals[call.NodeID]; ok && ordinal < int(floor) {
			out = append(out, fmt.Sprintf("%s: decommission of node %d (ordinal %d) while scaling to %d", cluster, call.NodeID, ordinal, marks[i].Target))
		}
	}
	return out
}

// Quantile returns the q-quantile (0..1) of ds, nearest rank; 0 for none.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
