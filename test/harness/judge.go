package harness

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// Mark is when the harness changed a cluster's spec, and what it asked for: Target is the
// default pool's spec.replicas, Pools each named pool's replicas (a pool not named wants 0; nil
// for a cluster without pools). Known, when not nil, holds the node IDs of every broker the
// cluster had run by then (KnownBrokers): a broker that joins later is no leftover of an
// earlier step.
type Mark struct {
	At     time.Time
	Target int32
	Pools  map[string]int32
	Known  map[int]bool
}

// wants is what the mark asks of pool ("" the default pool).
func (m Mark) wants(pool string) int32 {
	if pool == "" {
		return m.Target
	}
	return m.Pools[pool]
}

// Pod is where a simulated broker ran: its pool ("" the default pool) and its ordinal there.
type Pod struct {
	Pool    string
	Ordinal int
}

// KnownBrokers is the node IDs of every broker a simulated cluster has run, for Mark.Known.
func KnownBrokers(c *admintest.Cluster) map[int]bool {
	out := map[int]bool{}
	for _, b := range c.Brokers() {
		out[b.NodeID] = true
	}
	return out
}

// Ordinals maps the node ID of each broker a simulated cluster ever ran to its pod.
func Ordinals(c *admintest.Cluster) map[int]Pod {
	out := map[int]Pod{}
	for _, b := range c.Brokers() {
		out[b.NodeID] = Pod{Pool: b.Pool, Ordinal: b.Ordinal}
	}
	return out
}

// Untargeted lists the decommission requests that reached a cluster for a broker whose pod
// ordinal was below what its pool was being scaled to: during a step, a pool's brokers at or
// above the step's target for that pool may go, and so may, as leftovers of the step before,
// those at or above its target, unless the mark says they joined during this step (Known);
// none below. pods maps node IDs to pods (Ordinals); marks are the cluster's spec changes in order,
// the first its creation.
func Untargeted(cluster string, calls []admintest.Call, pods map[int]Pod, marks []Mark) []string {
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
		pod, ok := pods[call.NodeID]
		if !ok {
			continue
		}
		floor := marks[i].wants(pod.Pool)
		if i > 0 && (marks[i].Known == nil || marks[i].Known[call.NodeID]) {
			floor = min(floor, marks[i-1].wants(pod.Pool))
		}
		if pod.Ordinal >= int(floor) {
			continue
		}
		if pod.Pool == "" {
			out = append(out, fmt.Sprintf("%s: decommission of node %d (ordinal %d) while scaling to %d", cluster, call.NodeID, pod.Ordinal, marks[i].Target))
		} else {
			out = append(out, fmt.Sprintf("%s: decommission of node %d (pool %s ordinal %d) while scaling pool %s to %d", cluster, call.NodeID, pod.Pool, pod.Ordinal, pod.Pool, marks[i].wants(pod.Pool)))
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
