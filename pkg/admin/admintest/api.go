package admintest

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// Wire shapes of Redpanda's broker.json models, written independently of the client's decoder.
type brokerJSON struct {
	NodeID             int             `json:"node_id"`
	NumCores           int             `json:"num_cores"`
	MembershipStatus   string          `json:"membership_status"`
	IsAlive            bool            `json:"is_alive"`
	InternalRPCAddress string          `json:"internal_rpc_address"`
	InternalRPCPort    int             `json:"internal_rpc_port"`
	Version            string          `json:"version,omitempty"`
	MaintenanceStatus  maintenanceJSON `json:"maintenance_status"`
	// InFIPSMode is always written (fmt of the broker's fips_mode_flag); RecoveryModeEnabled and
	// DiskSpace only for a broker in the health report, as server.cc get_brokers does.
	InFIPSMode          string          `json:"in_fips_mode"`
	Rack                string          `json:"rack,omitempty"`
	RecoveryModeEnabled *bool           `json:"recovery_mode_enabled,omitempty"`
	DiskSpace           []diskSpaceJSON `json:"disk_space,omitempty"`
}

// diskSpaceJSON is broker.json's "disk_space_info": the data disk of a reporting broker.
type diskSpaceJSON struct {
	Path  string `json:"path"`
	Free  int64  `json:"free"`
	Total int64  `json:"total"`
}

// Disk figures of a simulated broker's data directory.
const (
	dataDirectory  = "/var/lib/redpanda/data"
	diskTotalBytes = 100 << 30
	diskFreeBytes  = 90 << 30
)

type partitionJSON struct {
	Namespace string `json:"ns"`
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
}

// decommissionStatusJSON is broker.json's "decommission_status". Seastar's JSON writer leaves out
// a list nothing was pushed to, so server.cc get_decommission_progress_handler sends
// allocation_failures and partitions only when they hold something: a removed broker's status is
// {"finished":true,"replicas_left":0}.
type decommissionStatusJSON struct {
	Finished           bool            `json:"finished"`
	ReplicasLeft       int             `json:"replicas_left"`
	AllocationFailures []string        `json:"allocation_failures,omitempty"`
	Partitions         []partitionJSON `json:"partitions,omitempty"`
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

// handle applies one admin API request to the cluster, as Redpanda's admin server does
// (src/v/redpanda/admin/server.cc; routes as api-doc/broker.json, cluster.json and
// partition.json declare them). Decommission and recommission follow decomission_broker_handler
// and recomission_broker_handler, their errors throw_on_error, their state rules
// src/v/cluster/members_table.cc (decommission needs an active broker, recommission a draining
// one); a non-integer ID is parse_broker_id's 400. Callers hold s.mu.
func (c *Cluster) handle(req request, method string) reply {
	switch {
	case req.rest == "/v1/brokers" && method == http.MethodGet:
		return c.listBrokers()
	case req.rest == "/v1/cluster/health_overview" && method == http.MethodGet:
		return c.healthOverview()
	case req.rest == "/v1/node_config" && method == http.MethodGet:
		return c.nodeConfig(req.pod)
	case req.rest == "/v1/status/ready" && method == http.MethodGet:
		// server.cc register_status_routes: {"status": "ready"} once the broker has started,
		// "booting" before; a broker refused at join never gets there.
		status := "ready"
		if m := c.byPod[req.pod]; (m != nil && m.status == admin.MembershipRemoved) || c.incompatible[req.pod] {
			status = "booting"
		}
		return reply{status: http.StatusOK, body: map[string]string{"status": status}}
	case req.rest == "/v1/broker/pre_restart_probe" && method == http.MethodGet:
		return c.preRestartProbe(req.pod)
	case req.rest == "/v1/broker/post_restart_probe" && method == http.MethodGet:
		return c.postRestartProbe(req.pod)
	case req.rest == "/v1/features" && method == http.MethodGet:
		return c.features(req.pod)
	case req.rest == "/v1/cluster/partitions" && method == http.MethodGet:
		return c.clusterPartitions()
	case req.rest == "/v1/partitions/redpanda/controller/0" && method == http.MethodGet:
		return c.controllerPartition()
	case strings.HasPrefix(req.rest, "/v1/cluster_config"):
		return c.handleClusterConfig(req, method)
	case strings.HasPrefix(req.rest, usersPath):
		return c.handleUsers(req, method)
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
		m.lastTick, m.drained = m.drainStart, 0
		m.decommissioned = true
		if c.rfOnDecommission > 0 {
			c.refresh()
			c.rf, c.rfOnDecommission = c.rfOnDecommission, 0
		}
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
	if on && !m.maintenance {
		m.maintenanceStart = c.s.clock.Now()
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

// maintenanceStatus is what a broker reports of its maintenance mode: its drain manager moves
// the leadership of its partitions away over the cluster's maintenance drain time. Callers hold
// s.mu.
func (c *Cluster) maintenanceStatus(m *member) maintenanceJSON {
	if !m.maintenance {
		return maintenanceJSON{}
	}
	total := c.s.opts.ReplicasPerBroker
	left := 0
	if d := c.maintenanceDrainTime; d > 0 {
		remaining := m.maintenanceStart.Add(d).Sub(c.s.clock.Now())
		left = int(min(max(math.Ceil(float64(total)*remaining.Seconds()/d.Seconds()), 0), float64(total)))
	}
	return maintenanceJSON{Draining: true, Finished: left == 0, Partitions: total, Eligible: total, Transferring: left}
}

// reportedMaintenance is the maintenance status as the health report gives it: only draining
// when the broker is down or the report is missing (server.cc fill_maintenance_status). Callers
// hold s.mu.
func (c *Cluster) reportedMaintenance(m *member) maintenanceJSON {
	if !c.alive(m) || c.healthReportMissing {
		return maintenanceJSON{Draining: m.maintenance}
	}
	return c.maintenanceStatus(m)
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
	}{m.nodeID, 1, string(m.status), c.stableAddress(m.pod), internalRPCPort, c.reportedMaintenance(m)}}
}

// healthOverview answers GET /v1/cluster/health_overview (cluster.json, server.cc
// register_cluster_routes; reasons in health_monitor_backend.cc's order). The cluster's
// partitions (Options.ReplicasPerBroker of them, topic kafka/simulated) are under-replicated
// while fewer brokers are alive than the replication factor, or while a broker is down and the
// factor is above 1; with a factor of 1, a broker down leaves them leaderless.
func (c *Cluster) healthOverview() reply {
	all, down := []int{}, []int{}
	for _, m := range c.brokersLocked() {
		if m.status == admin.MembershipRemoved {
			continue
		}
		all = append(all, m.nodeID)
		if !c.alive(m) {
			down = append(down, m.nodeID)
		}
	}
	controller := c.controllerID()
	partitions := make([]string, c.s.opts.ReplicasPerBroker)
	for p := range partitions {
		partitions[p] = fmt.Sprintf("kafka/simulated/%d", p)
	}
	leaderless, under := []string{}, []string{}
	switch {
	case len(down) > 0 && c.rf == 1:
		leaderless = partitions
	case len(all)-len(down) < c.rf || (len(down) > 0 && c.rf > 1):
		under = partitions
	}
	reasons := []string{}
	if len(down) > 0 {
		reasons = append(reasons, "nodes_down")
	}
	if len(leaderless) > 0 {
		reasons = append(reasons, "leaderless_partitions")
	}
	if len(under) > 0 {
		reasons = append(reasons, "under_replicated_partitions")
	}
	if controller < 0 {
		reasons = append(reasons, "no_elected_controller")
	}
	if c.healthReportMissing {
		reasons = append(reasons, "no_health_report")
	}
	return reply{status: http.StatusOK, body: map[string]any{
		"is_healthy": len(reasons) == 0, "unhealthy_reasons": reasons, "controller_id": controller,
		"all_nodes": all, "nodes_down": down, "nodes_in_recovery_mode": []int{},
		"leaderless_partitions": leaderless, "leaderless_count": len(leaderless),
		"under_replicated_partitions": under, "under_replicated_count": len(under),
		"bytes_in_cloud_storage": -1,
	}}
}

// nodeConfig answers GET /v1/node_config of the broker the addressed pod runs
// (config::node().to_json, src/v/config/node_config.cc property names).
func (c *Cluster) nodeConfig(p pod) reply {
	m := c.byPod[p]
	if m == nil {
		return reply{status: http.StatusOK, body: map[string]any{"node_id": nil}}
	}
	rpc := map[string]any{"address": c.stableAddress(m.pod), "port": internalRPCPort}
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

// controllerID is the controller leader: the broker SetControllerLeader chose while it is an
// alive member, else the lowest alive member; -1 when none is alive, as health_overview's
// controller_id ("node that is currently a leader or -1 if leader is not elected",
// src/v/redpanda/admin/api-doc/cluster.json). Callers hold s.mu.
func (c *Cluster) controllerID() int {
	if m := c.members[c.leaderNodeID]; c.leaderNodeID >= 0 && m != nil && m.status != admin.MembershipRemoved && c.alive(m) {
		return m.nodeID
	}
	for _, m := range c.brokersLocked() {
		if m.status != admin.MembershipRemoved && c.alive(m) {
			return m.nodeID
		}
	}
	return -1
}

// listBrokers answers GET /v1/brokers as server.cc get_brokers does: members from the members
// table (node_id, num_cores, membership_status, is_alive, maintenance_status.draining,
// internal_rpc_address and _port, in_fips_mode; rack only when set, by SetRack), enriched from the health report (version, recovery_mode_enabled, disk_space, drain
// status) for brokers that report, and
// 503 "Unable to get cluster health" while that report cannot be had.
func (c *Cluster) listBrokers() reply {
	if c.healthReportMissing {
		return errorReply(http.StatusServiceUnavailable, "Unable to get cluster health: Timeout occurred while processing request")
	}
	list := make([]brokerJSON, 0, len(c.members))
	for _, b := range c.brokersLocked() {
		if b.status == admin.MembershipRemoved {
			continue
		}
		j := brokerJSON{
			NodeID: b.nodeID, NumCores: 1, MembershipStatus: string(b.status), IsAlive: c.alive(b),
			InternalRPCAddress: c.stableAddress(b.pod), InternalRPCPort: internalRPCPort,
			MaintenanceStatus: maintenanceJSON{Draining: b.maintenance}, InFIPSMode: "disabled",
			Rack: c.racks[b.pod],
		}
		if j.IsAlive {
			recovery := false
			j.Version, j.RecoveryModeEnabled = b.version, &recovery
			j.DiskSpace = []diskSpaceJSON{c.diskOf(b.pod)}
			j.MaintenanceStatus = c.maintenanceStatus(b)
		}
		list = append(list, j)
	}
	return reply{status: http.StatusOK, body: list}
}

// decommissionStatus answers GET /v1/brokers/{id}/decommission as server.cc
// get_decommission_progress_handler does (finished for a removed broker, per
// src/v/cluster/controller_api.cc; "ns/topic/partition" allocation failures).
func (c *Cluster) decommissionStatus(nodeID int, m *member) reply {
	switch {
	case m == nil:
		return errorReply(http.StatusNotFound, "Node %d does not exists", nodeID)
	case m.status == admin.MembershipRemoved:
		return reply{status: http.StatusOK, body: decommissionStatusJSON{Finished: true}}
	case m.status != admin.MembershipDraining:
		return errorReply(http.StatusBadRequest, "Node %d is not decommissioning", nodeID)
	}
	left := c.replicasLeft(m)
	st := decommissionStatusJSON{ReplicasLeft: left, AllocationFailures: []string{}, Partitions: make([]partitionJSON, 0, left)}
	if !c.canPlace(m) {
		// Nowhere to move the replicas: nothing moves, every one is an allocation failure.
		for p := range left {
			st.AllocationFailures = append(st.AllocationFailures, fmt.Sprintf("kafka/simulated/%d", p))
		}
		return reply{status: http.StatusOK, body: st}
	}
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
	why := fmt.Sprintf("%s/%s: call #%d decommissioned node %d (via %s) but it was %s", c.Namespace, c.Name, seq, req.nodeID, req.pod, was)
	c.s.doubleDecommissions = append(c.s.doubleDecommissions, why)
	c.doubleDecommissions = append(c.doubleDecommissions, why)
}

// checkMaintenance records a broker put into maintenance while another broker of the cluster
// was in maintenance or restarting (see Server.Overlaps). Callers hold s.mu.
func (c *Cluster) checkMaintenance(req request, seq int) {
	if m := c.members[req.nodeID]; m != nil {
		c.checkOverlap(m.pod, fmt.Sprintf("put into maintenance by call #%d", seq))
	}
}

// checkOverlap records when the broker of pod p starts maintenance or a restart while another
// broker of the cluster, in any pool, is in maintenance or its pod is down for a restart.
// Callers hold s.mu.
func (c *Cluster) checkOverlap(p pod, what string) {
	var busy []string
	for _, id := range slices.Sorted(maps.Keys(c.members)) {
		o := c.members[id]
		if o.pod == p || o.pod.ordinal < 0 || o.status == admin.MembershipRemoved {
			continue
		}
		switch {
		case o.maintenance:
			busy = append(busy, fmt.Sprintf("node %d (%s) in maintenance", o.nodeID, o.pod))
		case c.podDown[o.pod] && c.byPod[o.pod] == o:
			busy = append(busy, fmt.Sprintf("node %d (%s) restarting", o.nodeID, o.pod))
		}
	}
	if len(busy) > 0 {
		c.s.overlaps = append(c.s.overlaps, fmt.Sprintf("%s/%s: %s %s while %s, after call #%d",
			c.Namespace, c.Name, p, what, strings.Join(busy, ", "), len(c.s.calls)))
	}
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

// postRestartProbe answers GET /v1/broker/post_restart_probe for the broker the addressed pod
// runs: {"load_reclaimed_pc": N}, the share of the in-sync replicas it hosts that have caught up
// since it started (redpanda-data/redpanda src/v/redpanda/admin/api-doc/broker.json; common-go
// rpadmin/api_broker.go, PostRestartCheckResult). The route exists from Redpanda 25.1 (rpadmin:
// "Added in Redpanda 25.1"); an older broker answers seastar's 404 for a route it does not have,
// which is how Redpanda's operator tells it to fall back (operator/CHANGELOG.md, v26.2.1).
func (c *Cluster) postRestartProbe(p pod) reply {
	m := c.byPod[p]
	if m == nil || !versionAtLeast(c.binaryVersion(p), 25, 1) {
		return errorReply(http.StatusNotFound, "Not found")
	}
	pc := 100
	if elapsed := c.s.clock.Now().Sub(m.restartedAt); m.recoveryTime > 0 && !m.restartedAt.IsZero() && elapsed < m.recoveryTime {
		pc = int(elapsed * 100 / m.recoveryTime)
	}
	return reply{status: http.StatusOK, body: map[string]int{"load_reclaimed_pc": pc}}
}

// versionAtLeast reports whether a Redpanda version ("v25.1.2", "25.1.2") is major.minor or
// later; one that does not parse is not.
func versionAtLeast(version string, major, minor int) bool {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return false
	}
	gotMajor, err1 := strconv.Atoi(parts[0])
	gotMinor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return gotMajor > major || (gotMajor == major && gotMinor >= minor)
}

// preRestartProbe answers GET /v1/broker/pre_restart_probe for the broker the addressed pod runs:
// {"risks": {...}}, the partitions restarting it would affect, by risk (redpanda-data/redpanda
// src/v/redpanda/admin/api-doc/broker.json; common-go rpadmin/api_broker.go, RestartRisks), from
// Redpanda 25.1 on (404 before, as for postRestartProbe). It derives them from the partitions
// with a replica on the broker (restartRisks, partitions.go); tests add what the model cannot
// show, such as acks=1 data not yet replicated, with Cluster.SetRestartRisks.
func (c *Cluster) preRestartProbe(p pod) reply {
	m := c.byPod[p]
	if m == nil || !versionAtLeast(c.binaryVersion(p), 25, 1) {
		return errorReply(http.StatusNotFound, "Not found")
	}
	risks := c.restartRisks(m)
	extra := c.extraRisks[p]
	risks.RF1Offline = append(risks.RF1Offline, extra.RF1Offline...)
	risks.FullAcksProduceUnavailable = append(risks.FullAcksProduceUnavailable, extra.FullAcksProduceUnavailable...)
	risks.Unavailable = append(risks.Unavailable, extra.Unavailable...)
	risks.Acks1DataLoss = append(risks.Acks1DataLoss, extra.Acks1DataLoss...)
	return reply{status: http.StatusOK, body: map[string]any{"risks": risks}}
}
