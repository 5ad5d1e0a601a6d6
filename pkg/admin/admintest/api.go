package admintest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// Wire shapes of Redpanda's broker.json models, written independently of the client's decoder.
type brokerJSON struct {
	NodeID             int    `json:"node_id"`
	NumCores           int    `json:"num_cores"`
	MembershipStatus   string `json:"membership_status"`
	IsAlive            bool   `json:"is_alive"`
	InternalRPCAddress string `json:"internal_rpc_address"`
	InternalRPCPort    int    `json:"internal_rpc_port"`
}

type partitionJSON struct {
	Namespace string `json:"ns"`
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
}

type decommissionStatusJSON struct {
	Finished           bool            `json:"finished"`
	ReplicasLeft       int             `json:"replicas_left"`
	AllocationFailures []string        `json:"allocation_failures"`
	Partitions         []partitionJSON `json:"partitions"`
}

// internalRPCPort is Redpanda's default internal RPC port.
const internalRPCPort = 33145

// reply is what a handler decided to answer.
type reply struct {
	status int
	body   any // marshalled as JSON; nil sends an empty body
}

func errorReply(status int, format string, args ...any) reply {
	return reply{status: status, body: map[string]any{"message": fmt.Sprintf(format, args...), "code": status}}
}

// handle applies one admin API request to the cluster, as Redpanda's admin server does.
// Callers hold s.mu.
func (c *Cluster) handle(req request, method string) reply {
	switch {
	case req.rest == "/v1/brokers" && method == http.MethodGet:
		return c.listBrokers()
	case req.rest == "/v1/cluster/health_overview" && method == http.MethodGet:
		return c.healthOverview()
	case req.rest == "/v1/node_config" && method == http.MethodGet:
		return c.nodeConfig(req.ordinal)
	case req.rest == "/v1/status/ready" && method == http.MethodGet:
		// server.cc register_status_routes: {"status": "ready"} once the broker has started.
		return reply{status: http.StatusOK, body: map[string]string{"status": "ready"}}
	case req.rest == "/v1/partitions/redpanda/controller/0" && method == http.MethodGet:
		return c.controllerPartition()
	case !strings.HasPrefix(req.rest, "/v1/brokers/"):
		return errorReply(http.StatusNotFound, "Not found")
	case req.nodeID < 0:
		return errorReply(http.StatusBadRequest, "Broker id: %s, must be an integer", strings.SplitN(strings.TrimPrefix(req.rest, "/v1/brokers/"), "/", 2)[0])
	}
	m := c.members[req.nodeID]
	if m != nil && m.status == admin.MembershipRemoved && !(req.action == "decommission" && method == http.MethodGet) {
		m = nil // removed brokers are no longer members
	}
	switch {
	case req.action == "" && method == http.MethodGet:
		return c.describeBroker(req.nodeID, m)
	case req.action == "decommission" && method == http.MethodPut:
		if m == nil {
			return errorReply(http.StatusNotFound, "broker with id %d not found", req.nodeID)
		}
		if m.status != admin.MembershipActive {
			return errorReply(http.StatusBadRequest, "can not update broker %d state, invalid state transition requested", req.nodeID)
		}
		m.status = admin.MembershipDraining
		m.drainStart = c.s.clock.Now()
		m.decommissioned = true
		return reply{status: http.StatusOK}
	case req.action == "recommission" && method == http.MethodPut:
		if m == nil {
			return errorReply(http.StatusNotFound, "broker with id %d not found", req.nodeID)
		}
		if m.status != admin.MembershipDraining {
			return errorReply(http.StatusBadRequest, "can not update broker %d state, invalid state transition requested", req.nodeID)
		}
		m.status = admin.MembershipActive
		return reply{status: http.StatusOK}
	case req.action == "decommission" && method == http.MethodGet:
		return c.decommissionStatus(req.nodeID, m)
	case req.action == "maintenance" && method == http.MethodPut:
		return c.setMaintenance(req.nodeID, m, true)
	case req.action == "maintenance" && method == http.MethodDelete:
		return c.setMaintenance(req.nodeID, m, false)
	default:
		return errorReply(http.StatusNotFound, "Not found")
	}
}

// memberCount counts brokers that are members (not removed). Callers hold s.mu.
func (c *Cluster) memberCount() int {
	n := 0
	for _, m := range c.members {
		if m.status != admin.MembershipRemoved {
			n++
		}
	}
	return n
}

// setMaintenance answers PUT and DELETE /v1/brokers/{id}/maintenance as server.cc's
// start/stop_broker_maintenance_handler and members_table.cc's maintenance_mode_cmd do: a
// single-node cluster is refused before anything else, an unknown broker is 404, turning it on
// again or off when it is off succeeds, and only one broker may be in maintenance at a time.
func (c *Cluster) setMaintenance(nodeID int, m *member, on bool) reply {
	if on && c.memberCount() < 2 {
		return errorReply(http.StatusBadRequest, "Maintenance mode may not be used on a single node cluster")
	}
	if m == nil {
		return errorReply(http.StatusNotFound, "broker with id %d not found", nodeID)
	}
	if on && !m.maintenance {
		for _, other := range c.members {
			if other != m && other.maintenance && other.status != admin.MembershipRemoved {
				return errorReply(http.StatusBadRequest, "can not update broker %d state, invalid state transition requested", nodeID)
			}
		}
	}
	m.maintenance = on
	return reply{status: http.StatusOK}
}

// maintenanceJSON is broker.json's "maintenance_status" as server.cc fill_maintenance_status
// writes it once a drain status is known.
type maintenanceJSON struct {
	Draining     bool `json:"draining"`
	Finished     bool `json:"finished"`
	Errors       bool `json:"errors"`
	Partitions   int  `json:"partitions"`
	Eligible     int  `json:"eligible"`
	Transferring int  `json:"transferring"`
	Failed       int  `json:"failed"`
}

// maintenanceStatus is what a broker reports of its maintenance mode. Callers hold s.mu.
func (c *Cluster) maintenanceStatus(m *member) maintenanceJSON {
	if !m.maintenance {
		return maintenanceJSON{}
	}
	return maintenanceJSON{Draining: true, Finished: true}
}

// describeBroker answers GET /v1/brokers/{id} as server.cc get_broker_handler does: no is_alive
// and no version, and its own 404 message ("broker with id: N not found").
func (c *Cluster) describeBroker(nodeID int, m *member) reply {
	if m == nil {
		return errorReply(http.StatusNotFound, "broker with id: %d not found", nodeID)
	}
	return reply{status: http.StatusOK, body: struct {
		NodeID             int             `json:"node_id"`
		NumCores           int             `json:"num_cores"`
		MembershipStatus   string          `json:"membership_status"`
		InternalRPCAddress string          `json:"internal_rpc_address"`
		InternalRPCPort    int             `json:"internal_rpc_port"`
		MaintenanceStatus  maintenanceJSON `json:"maintenance_status"`
	}{m.nodeID, 1, string(m.status), c.stableAddress(m.ordinal), internalRPCPort, c.maintenanceStatus(m)}}
}

// healthOverview answers GET /v1/cluster/health_overview (cluster.json, server.cc
// register_cluster_routes; reasons as health_monitor_backend.cc names them).
func (c *Cluster) healthOverview() reply {
	all, down := []int{}, []int{}
	controller := -1
	for _, m := range c.brokersLocked() {
		if m.status == admin.MembershipRemoved {
			continue
		}
		all = append(all, m.nodeID)
		if !c.alive(m) {
			down = append(down, m.nodeID)
		} else if controller < 0 {
			controller = m.nodeID
		}
	}
	reasons := []string{}
	if len(down) > 0 {
		reasons = append(reasons, "nodes_down")
	}
	if controller < 0 {
		reasons = append(reasons, "no_elected_controller")
	}
	return reply{status: http.StatusOK, body: map[string]any{
		"is_healthy": len(reasons) == 0, "unhealthy_reasons": reasons, "controller_id": controller,
		"all_nodes": all, "nodes_down": down, "nodes_in_recovery_mode": []int{},
		"leaderless_partitions": []string{}, "leaderless_count": 0,
		"under_replicated_partitions": []string{}, "under_replicated_count": 0,
		"bytes_in_cloud_storage": -1,
	}}
}

// nodeConfig answers GET /v1/node_config of the broker the pod with this ordinal runs
// (config::node().to_json, src/v/config/node_config.cc property names).
func (c *Cluster) nodeConfig(ordinal int) reply {
	m := c.byOrdinal[ordinal]
	if m == nil {
		return reply{status: http.StatusOK, body: map[string]any{"node_id": nil}}
	}
	rpc := map[string]any{"address": c.stableAddress(ordinal), "port": internalRPCPort}
	return reply{status: http.StatusOK, body: map[string]any{
		"node_id":            m.nodeID,
		"data_directory":     map[string]string{"data_directory": "/var/lib/redpanda/data"},
		"rpc_server":         map[string]any{"address": "0.0.0.0", "port": internalRPCPort},
		"advertised_rpc_api": rpc,
	}}
}

// controllerPartition answers GET /v1/partitions/redpanda/controller/0 as partition.cc's
// build_controller_partition does: every member a replica, the leader first.
func (c *Cluster) controllerPartition() reply {
	type assignment struct {
		NodeID int `json:"node_id"`
		Core   int `json:"core"`
	}
	leader := c.controllerID()
	replicas := []assignment{}
	if leader >= 0 {
		replicas = append(replicas, assignment{NodeID: leader})
	}
	for _, m := range c.brokersLocked() {
		if m.status != admin.MembershipRemoved && m.nodeID != leader {
			replicas = append(replicas, assignment{NodeID: m.nodeID})
		}
	}
	return reply{status: http.StatusOK, body: map[string]any{
		"ns": "redpanda", "topic": "controller", "partition_id": 0, "leader_id": leader,
		"raft_group_id": 0, "replicas": replicas, "status": "done", "disabled": false,
	}}
}

// controllerID is the controller leader: the lowest alive member. Callers hold s.mu.
func (c *Cluster) controllerID() int {
	for _, m := range c.brokersLocked() {
		if m.status != admin.MembershipRemoved && c.alive(m) {
			return m.nodeID
		}
	}
	return -1
}

func (c *Cluster) listBrokers() reply {
	list := make([]brokerJSON, 0, len(c.members))
	for _, b := range c.brokersLocked() {
		if b.status == admin.MembershipRemoved {
			continue
		}
		list = append(list, brokerJSON{
			NodeID: b.nodeID, NumCores: 1, MembershipStatus: string(b.status), IsAlive: c.alive(b),
			InternalRPCAddress: c.stableAddress(b.ordinal), InternalRPCPort: internalRPCPort,
		})
	}
	return reply{status: http.StatusOK, body: list}
}

func (c *Cluster) decommissionStatus(nodeID int, m *member) reply {
	switch {
	case m == nil:
		return errorReply(http.StatusNotFound, "Node %d does not exists", nodeID)
	case m.status == admin.MembershipRemoved:
		return reply{status: http.StatusOK, body: decommissionStatusJSON{Finished: true, AllocationFailures: []string{}, Partitions: []partitionJSON{}}}
	case m.status != admin.MembershipDraining:
		return errorReply(http.StatusBadRequest, "Node %d is not decommissioning", nodeID)
	}
	left := c.replicasLeft(m)
	st := decommissionStatusJSON{ReplicasLeft: left, AllocationFailures: []string{}, Partitions: make([]partitionJSON, 0, left)}
	for p := range left {
		st.Partitions = append(st.Partitions, partitionJSON{Namespace: "kafka", Topic: "simulated", Partition: p})
	}
	return reply{status: http.StatusOK, body: st}
}

// checkDecommission records a decommission request that reached the cluster for a broker that
// was not active just before it. Callers hold s.mu; the request has been applied already, so the
// status the cluster answered tells what the broker was.
func (c *Cluster) checkDecommission(req request, status, seq int) {
	var was string
	switch status {
	case http.StatusOK:
		return
	case http.StatusBadRequest:
		if c.members[req.nodeID] == nil {
			return // a malformed ID, not a decision about a broker
		}
		was = "already draining"
	case http.StatusNotFound:
		if m := c.members[req.nodeID]; m != nil {
			was = "already removed (its decommission had finished)"
		} else {
			was = "never a member"
		}
	default:
		return
	}
	c.s.doubleDecommissions = append(c.s.doubleDecommissions,
		fmt.Sprintf("%s/%s: call #%d decommissioned node %d (via ordinal %d) but it was %s", c.Namespace, c.Name, seq, req.nodeID, req.ordinal, was))
}

func writeReply(w http.ResponseWriter, r reply) {
	w.Header().Set("Content-Type", "application/json")
	if r.body == nil {
		w.WriteHeader(r.status)
		return
	}
	data, err := json.Marshal(r.body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(data)
}
