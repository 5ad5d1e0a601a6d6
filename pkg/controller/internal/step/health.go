package step

import (
	"fmt"
	"strings"
)

// The health gate. Before a scale-down starts a decommission and before a rollout restarts a
// broker, the brokers' GET /v1/cluster/health_overview must show a healthy cluster: no broker
// down, no leaderless and no under-replicated partitions. Redpanda operator v1 checks the same
// call before each restart (redpanda-data/redpanda-operator,
// operator/pkg/resources/statefulset_update.go, isClusterHealthy); the fields are Redpanda's
// cluster_health_overview (redpanda-data/redpanda, src/v/redpanda/admin/api-doc/cluster.json).
// spec.unsafeSkipHealthGate opens the gate whatever the brokers say.

// health is what the health_overview says, reduced to what the gate needs.
type Health struct {
	// Known is false when the call was not made or did not answer.
	Known bool
	// Problems name what is unhealthy, one phrase each; empty when healthy.
	Problems []string
	// Controller is the controller leader's node ID (controller_id), -1 when there is none or
	// the call did not answer.
	Controller int
}

// healthReport is the part of a health_overview answer the gate reads.
type HealthReport struct {
	IsHealthy            bool
	UnhealthyReasons     []string
	NodesDown            []int
	LeaderlessCount      int
	UnderReplicatedCount int
	ControllerID         int
}

// assess turns a health_overview answer into the gate's view. Every signal counts on its own:
// is_healthy false with no other field set still closes the gate, with Redpanda's reasons.
func Assess(r HealthReport) Health {
	h := Health{Known: true, Controller: r.ControllerID}
	if len(r.NodesDown) > 0 {
		h.Problems = append(h.Problems, fmt.Sprintf("brokers down: %v", r.NodesDown))
	}
	if r.LeaderlessCount > 0 {
		h.Problems = append(h.Problems, fmt.Sprintf("%d leaderless partitions", r.LeaderlessCount))
	}
	if r.UnderReplicatedCount > 0 {
		h.Problems = append(h.Problems, fmt.Sprintf("%d under-replicated partitions", r.UnderReplicatedCount))
	}
	if !r.IsHealthy && len(h.Problems) == 0 {
		reasons := "no reason given"
		if len(r.UnhealthyReasons) > 0 {
			reasons = strings.Join(r.UnhealthyReasons, ", ")
		}
		h.Problems = append(h.Problems, "cluster not healthy ("+reasons+")")
	}
	return h
}

// healthy reports whether the gate may open on h alone.
func (h Health) Healthy() bool { return h.Known && len(h.Problems) == 0 }

// String names what is unhealthy, for the Degraded condition and events.
func (h Health) String() string {
	switch {
	case !h.Known:
		return "the cluster's health is not known (health_overview did not answer)"
	case len(h.Problems) == 0:
		return "healthy"
	}
	return strings.Join(h.Problems, "; ")
}
