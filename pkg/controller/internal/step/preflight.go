package step

import (
	"fmt"
	"slices"
	"strings"
)

// The scale-down pre-flight. Before a broker is decommissioned, the brokers that would remain
// once spec.replicas is reached must be able to hold the data; otherwise the drain could never
// finish and the cluster would spend the time with a broker draining. The scale-down is held
// (HoldScaleDown, Degraded ScaleDownWouldNotFit), nothing decommissioned, and goes on by itself
// once spec.replicas or the topics change. The decision judges it from the observation, and the
// decommission's call relies on it afresh (FactDataFits), so a topic made in between is seen.
//
//   - Replication factor: Redpanda places a partition's replicas on distinct brokers (the
//     distinct_nodes hard constraint, redpanda-data/redpanda src/v/cluster/scheduling/
//     constraints.h), so no fewer brokers may remain than the largest number of replicas of any
//     partition, internal topics included (GET /v1/cluster/partitions?with_internal=true).
//   - Racks: with rack awareness on, the allocator prefers replicas on distinct racks
//     (distinct_rack_preferred, constraints.cc, a soft constraint: it does not refuse a
//     placement, so the drain would finish with two replicas of a partition on one rack). The
//     scale-down is held when the remaining brokers would span fewer racks than the largest
//     replication factor needs and than the cluster spans now: it would take away the rack
//     spread rack awareness was turned on for.
//   - Disk: the bytes in use on the leaving brokers' data disks must fit in what the remaining
//     brokers can take before they reach Redpanda's own free-space floor (disk.go).

// Placement is what the pre-flight rests on, read from the admin API.
type Placement struct {
	// Asked: GET /v1/cluster/partitions answered. NoRoute: it answered 404 (Redpanda before
	// 23.2); the scale-down is then not checked, as before.
	Asked, NoRoute bool
	// Target is spec.replicas: how many brokers remain; with pools, every pool's replicas.
	Target int32
	// Pools: the cluster has pools, so Target counts several pools' brokers.
	Pools bool
	// Partitions are the partitions of every topic with their replicas.
	Partitions []PartitionReplicas
	// RackAware: spec.rackAwareness is set. Racks are the racks of the brokers there are now
	// and of those that would remain ("" for a broker with none).
	RackAware         bool
	RacksNow, Remains []string
	// Disk is what the disk check rests on (disk.go).
	Disk DiskFit
}

// PartitionReplicas is one partition: ns/topic/partition and its replicas' node IDs.
type PartitionReplicas struct {
	Topic    string // ns/topic
	ID       int
	Replicas []int32
}

// Widest is the topic with the most replicas on any one partition, and that number; "" and 0
// when there are no partitions.
func (p Placement) Widest() (string, int) {
	topic, rf := "", 0
	for _, part := range p.Partitions {
		if n := len(part.Replicas); n > rf || (n == rf && part.Topic < topic) {
			topic, rf = part.Topic, n
		}
	}
	return topic, rf
}

// Refused says why the brokers that would remain cannot hold the data, with what to do; ""
// when they can, or when it was not asked.
func (p Placement) Refused() string {
	if !p.Asked || p.NoRoute {
		return ""
	}
	topic, rf := p.Widest()
	keep := "keep spec.replicas at %d or more; the scale-down goes on by itself once it fits"
	if p.Pools {
		keep = "keep at least %d brokers across the pools' replicas; the move goes on by itself once it fits"
	}
	if int(p.Target) < rf {
		return fmt.Sprintf("topic %s has %d replicas per partition (replication factor %d) and only %s would remain: Redpanda places each replica on a distinct broker; lower the topic's replication factor to %d or delete the topic, or "+keep,
			topic, rf, rf, BrokerCount(p.Target), p.Target, rf)
	}
	if p.RackAware {
		now, left := distinct(p.RacksNow), distinct(p.Remains)
		if need := min(rf, len(now)); len(left) < need {
			return fmt.Sprintf("with rack awareness on, topic %s has %d replicas per partition and the brokers that would remain span only %d of the %d racks the cluster spans now (%s of %s): some partition would have two replicas on one rack; lower the topic's replication factor to %d, or keep brokers on more racks",
				topic, rf, len(left), len(now), strings.Join(left, ", "), strings.Join(now, ", "), max(len(left), 1))
		}
	}
	return p.Disk.Refused()
}

// distinct lists the named racks of racks, sorted, each once.
func distinct(racks []string) []string {
	var out []string
	for _, r := range racks {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// Unchecked says that a scale-down goes ahead without the pre-flight, and why; "" otherwise.
func (p Placement) Unchecked() string {
	if p.NoRoute {
		return "the brokers have no GET /v1/cluster/partitions (Redpanda before 23.3), so whether the brokers that would remain can hold the data is not checked"
	}
	return ""
}
