package admintest

import (
	"fmt"
	"net/http"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// partition is one partition of the simulated topic kafka/simulated and the node IDs of its
// replicas.
type partition struct {
	name     string
	replicas []int
}

// partitions places the simulated topic's partitions on the cluster's members (removed ones
// excluded), as Redpanda's partition allocator does in the way that matters here: each
// partition's replicas on rf distinct brokers (redpanda-data/redpanda
// src/v/cluster/scheduling/constraints.h, the distinct_nodes hard constraint), spread evenly so
// that every broker hosts about Options.ReplicasPerBroker of them (max_final_capacity, the
// soft constraint that scores brokers by the partitions they will hold). There are
// ReplicasPerBroker*brokers/rf partitions, rounded up; partition p has its replicas on the
// brokers p, p+1, ..., p+rf-1 (mod brokers) in node ID order. The placement follows the
// members at once: a drain's moves are not modelled replica by replica. With fewer members than
// the factor, each partition has a replica on every member. Callers hold s.mu.
func (c *Cluster) partitions() []partition {
	var ids []int
	for _, m := range c.brokersLocked() {
		if m.status != admin.MembershipRemoved {
			ids = append(ids, m.nodeID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rf := min(c.rf, len(ids))
	n := (c.s.opts.ReplicasPerBroker*len(ids) + c.rf - 1) / c.rf
	out := make([]partition, n)
	for p := range out {
		out[p].name = fmt.Sprintf("kafka/simulated/%d", p)
		for k := range rf {
			out[p].replicas = append(out[p].replicas, ids[(p+k)%len(ids)])
		}
	}
	return out
}

// PartitionReplicas returns the node IDs of the replicas of each partition of the simulated
// topic, by partition name ("kafka/simulated/N"), for tests.
func (c *Cluster) PartitionReplicas() map[string][]int {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	out := map[string][]int{}
	for _, p := range c.partitions() {
		out[p.name] = p.replicas
	}
	return out
}

// restartRisks derives what restarting member m would do to the partitions with a replica on
// it, as the pre_restart_probe reports it (common-go rpadmin/api_broker.go, RestartRisks): a
// partition whose only replica is m (replication factor 1) goes offline, rf1_offline; one
// whose other replicas that are alive make no majority of its replicas without m may reject
// both produce and consume, unavailable, and so also acks=all produce,
// full_acks_produce_unavailable. Callers hold s.mu.
func (c *Cluster) restartRisks(m *member) admin.RestartRisks {
	risks := admin.RestartRisks{RF1Offline: []string{}, FullAcksProduceUnavailable: []string{}, Unavailable: []string{}, Acks1DataLoss: []string{}}
	for _, p := range c.partitions() {
		hosted, alive := false, 0
		for _, id := range p.replicas {
			switch o := c.members[id]; {
			case o == m:
				hosted = true
			case c.alive(o):
				alive++
			}
		}
		switch {
		case !hosted:
		case len(p.replicas) == 1:
			risks.RF1Offline = append(risks.RF1Offline, p.name)
		case alive < len(p.replicas)/2+1:
			risks.Unavailable = append(risks.Unavailable, p.name)
			risks.FullAcksProduceUnavailable = append(risks.FullAcksProduceUnavailable, p.name)
		}
	}
	return risks
}

// RestartRisks returns what the pre_restart_probe of the broker the pod with this ordinal runs
// answers now, SetRestartRisks' additions included; false when it has no probe (no broker, or
// one older than Redpanda 25.1). Tests judge a restart's call by it.
func (c *Cluster) RestartRisks(ordinal int) (admin.RestartRisks, bool) {
	return c.restartRisksOf(pod{ordinal: ordinal})
}

func (c *Cluster) restartRisksOf(p pod) (admin.RestartRisks, bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	r := c.preRestartProbe(p)
	if r.status != http.StatusOK {
		return admin.RestartRisks{}, false
	}
	return r.body.(map[string]any)["risks"].(admin.RestartRisks), true
}

// clusterPartitions answers GET /v1/cluster/partitions as server.cc
// get_cluster_partitions_handler does (api-doc/cluster.json, cluster_partition): every
// partition of every topic in the controller's topic table, sorted by topic, with ns, topic,
// partition_id, leader_id, replicas (node_id and core) and disabled. with_internal adds the
// internal topics, and the simulator has none, so it answers the same either way. The leader
// is the partition's first replica. Callers hold s.mu.
func (c *Cluster) clusterPartitions() reply {
	type assignment struct {
		NodeID int `json:"node_id"`
		Core   int `json:"core"`
	}
	type partitionJSON struct {
		NS          string       `json:"ns"`
		Topic       string       `json:"topic"`
		PartitionID int          `json:"partition_id"`
		LeaderID    int          `json:"leader_id"`
		Replicas    []assignment `json:"replicas"`
		Disabled    bool         `json:"disabled"`
	}
	out := []partitionJSON{}
	for i, p := range c.partitions() {
		j := partitionJSON{NS: "kafka", Topic: "simulated", PartitionID: i, LeaderID: p.replicas[0]}
		for _, id := range p.replicas {
			j.Replicas = append(j.Replicas, assignment{NodeID: id})
		}
		out = append(out, j)
	}
	return reply{status: http.StatusOK, body: out}
}
