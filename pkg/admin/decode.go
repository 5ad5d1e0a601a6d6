package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// readCapped reads at most limit bytes of r; a longer body is an error, so a broken or hostile
// peer cannot make the client hold more than limit bytes.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("body exceeds %d bytes", limit)
	}
	return body, nil
}

// wireBroker mirrors the "broker" model of Redpanda's broker.json. Pointers tell absent fields
// from zero values.
type wireBroker struct {
	NodeID             *int64  `json:"node_id"`
	MembershipStatus   *string `json:"membership_status"`
	IsAlive            *bool   `json:"is_alive"`
	InternalRPCAddress *string `json:"internal_rpc_address"`
	InternalRPCPort    *int64  `json:"internal_rpc_port"`
	Version            *string `json:"version"`
	Rack               *string `json:"rack"`
	// DiskSpace is disk_space_info per data directory; server.cc get_brokers writes one, the
	// data directory, for a broker in the health report.
	DiskSpace []struct {
		Path  string `json:"path"`
		Free  int64  `json:"free"`
		Total int64  `json:"total"`
	} `json:"disk_space"`
	// MaintenanceStatus is the "maintenance_status" model; server.cc fill_maintenance_status
	// always sets draining, the counts only with a drain status from the health report.
	MaintenanceStatus *struct {
		Draining     bool  `json:"draining"`
		Finished     bool  `json:"finished"`
		Errors       bool  `json:"errors"`
		Partitions   int64 `json:"partitions"`
		Eligible     int64 `json:"eligible"`
		Transferring int64 `json:"transferring"`
		Failed       int64 `json:"failed"`
	} `json:"maintenance_status"`
}

// wireHealthOverview mirrors the "cluster_health_overview" model of Redpanda's cluster.json.
type wireHealthOverview struct {
	IsHealthy                 *bool    `json:"is_healthy"`
	UnhealthyReasons          []string `json:"unhealthy_reasons"`
	ControllerID              *int64   `json:"controller_id"`
	AllNodes                  []int64  `json:"all_nodes"`
	NodesDown                 []int64  `json:"nodes_down"`
	NodesInRecoveryMode       []int64  `json:"nodes_in_recovery_mode"`
	LeaderlessPartitions      []string `json:"leaderless_partitions"`
	LeaderlessCount           *int64   `json:"leaderless_count"`
	UnderReplicatedPartitions []string `json:"under_replicated_partitions"`
	UnderReplicatedCount      *int64   `json:"under_replicated_count"`
}

// wireAddress is net::unresolved_address as src/v/json/json.cc writes it.
type wireAddress struct {
	Address string `json:"address"`
	Port    int64  `json:"port"`
}

// wireNodeConfig is the part of GET /v1/node_config the client reads: config::node().to_json
// (src/v/config/node_config.cc property names; data_directory as
// src/v/config/rjson_serialization.cc writes it).
type wireNodeConfig struct {
	NodeID           *int64       `json:"node_id"`
	AdvertisedRPCAPI *wireAddress `json:"advertised_rpc_api"`
	DataDirectory    *struct {
		Path string `json:"data_directory"`
	} `json:"data_directory"`
}

// wireDecommissionStatus mirrors the "decommission_status" model of broker.json.
type wireDecommissionStatus struct {
	Finished           *bool             `json:"finished"`
	ReplicasLeft       *int64            `json:"replicas_left"`
	AllocationFailures []string          `json:"allocation_failures"`
	Partitions         []json.RawMessage `json:"partitions"`
}

// wireError is the body seastar's HTTP server writes for a failed request.
type wireError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
}

// decodeBrokers parses the body of GET /v1/brokers.
func decodeBrokers(r io.Reader, limit int64) ([]Broker, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return nil, err
	}
	if err := expectJSON(body, '['); err != nil {
		return nil, err
	}
	var wire []wireBroker
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, fmt.Errorf("decoding broker list: %w", err)
	}
	brokers := make([]Broker, 0, len(wire))
	seen := make(map[int]bool, len(wire))
	for i, w := range wire {
		b, err := w.broker()
		if err != nil {
			return nil, fmt.Errorf("broker list entry %d: %w", i, err)
		}
		if seen[b.NodeID] {
			return nil, fmt.Errorf("broker list entry %d: node_id %d listed twice", i, b.NodeID)
		}
		seen[b.NodeID] = true
		brokers = append(brokers, b)
	}
	return brokers, nil
}

func (w wireBroker) broker() (Broker, error) {
	if w.NodeID == nil {
		return Broker{}, errors.New("missing node_id")
	}
	if *w.NodeID < 0 || *w.NodeID > math.MaxInt32 {
		return Broker{}, fmt.Errorf("node_id %d out of range", *w.NodeID)
	}
	if w.MembershipStatus == nil || *w.MembershipStatus == "" {
		return Broker{}, errors.New("missing membership_status")
	}
	b := Broker{NodeID: int(*w.NodeID), MembershipStatus: MembershipStatus(*w.MembershipStatus)}
	if w.IsAlive != nil {
		b.IsAlive = *w.IsAlive
	}
	if w.InternalRPCAddress != nil {
		b.InternalRPCAddress = *w.InternalRPCAddress
	}
	if w.InternalRPCPort != nil {
		if *w.InternalRPCPort < 0 || *w.InternalRPCPort > 65535 {
			return Broker{}, fmt.Errorf("internal_rpc_port %d out of range", *w.InternalRPCPort)
		}
		b.InternalRPCPort = int(*w.InternalRPCPort)
	}
	if w.Version != nil {
		b.Version = *w.Version
	}
	if w.Rack != nil {
		b.Rack = *w.Rack
	}
	if len(w.DiskSpace) > 0 {
		d := w.DiskSpace[0]
		if d.Free < 0 || d.Total < 0 || d.Free > d.Total {
			return Broker{}, fmt.Errorf("disk_space free %d of total %d out of range", d.Free, d.Total)
		}
		b.Disk = DiskSpace{Known: true, Free: d.Free, Total: d.Total}
	}
	if m := w.MaintenanceStatus; m != nil {
		for _, n := range []int64{m.Partitions, m.Eligible, m.Transferring, m.Failed} {
			if n < 0 || n > math.MaxInt32 {
				return Broker{}, fmt.Errorf("maintenance_status count %d out of range", n)
			}
		}
		b.MaintenanceStatus = MaintenanceStatus{
			Draining: m.Draining, Finished: m.Finished, Errors: m.Errors,
			Partitions: int(m.Partitions), Eligible: int(m.Eligible),
			Transferring: int(m.Transferring), Failed: int(m.Failed),
		}
	}
	return b, nil
}

// decodeBroker parses the body of GET /v1/brokers/{id}; it must describe nodeID.
func decodeBroker(r io.Reader, limit int64, nodeID int) (Broker, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return Broker{}, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return Broker{}, err
	}
	var w wireBroker
	if err := json.Unmarshal(body, &w); err != nil {
		return Broker{}, fmt.Errorf("decoding broker: %w", err)
	}
	b, err := w.broker()
	if err != nil {
		return Broker{}, err
	}
	if b.NodeID != nodeID {
		return Broker{}, fmt.Errorf("asked for broker %d, got broker %d", nodeID, b.NodeID)
	}
	return b, nil
}

// decodeHealthOverview parses the body of GET /v1/cluster/health_overview.
func decodeHealthOverview(r io.Reader, limit int64) (HealthOverview, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return HealthOverview{}, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return HealthOverview{}, err
	}
	var w wireHealthOverview
	if err := json.Unmarshal(body, &w); err != nil {
		return HealthOverview{}, fmt.Errorf("decoding health overview: %w", err)
	}
	if w.IsHealthy == nil {
		return HealthOverview{}, errors.New("health overview: missing is_healthy")
	}
	h := HealthOverview{
		IsHealthy:                 *w.IsHealthy,
		UnhealthyReasons:          w.UnhealthyReasons,
		ControllerID:              -1,
		LeaderlessPartitions:      w.LeaderlessPartitions,
		UnderReplicatedPartitions: w.UnderReplicatedPartitions,
		LeaderlessCount:           len(w.LeaderlessPartitions),
		UnderReplicatedCount:      len(w.UnderReplicatedPartitions),
	}
	if w.ControllerID != nil {
		if *w.ControllerID < -1 || *w.ControllerID > math.MaxInt32 {
			return HealthOverview{}, fmt.Errorf("health overview: controller_id %d out of range", *w.ControllerID)
		}
		h.ControllerID = int(*w.ControllerID)
	}
	for _, f := range []struct {
		name string
		in   []int64
		out  *[]int
	}{{"all_nodes", w.AllNodes, &h.AllNodes}, {"nodes_down", w.NodesDown, &h.NodesDown}, {"nodes_in_recovery_mode", w.NodesInRecoveryMode, &h.NodesInRecoveryMode}} {
		for _, id := range f.in {
			if id < 0 || id > math.MaxInt32 {
				return HealthOverview{}, fmt.Errorf("health overview: %s: node ID %d out of range", f.name, id)
			}
			*f.out = append(*f.out, int(id))
		}
	}
	for _, c := range []struct {
		name string
		in   *int64
		out  *int
	}{{"leaderless_count", w.LeaderlessCount, &h.LeaderlessCount}, {"under_replicated_count", w.UnderReplicatedCount, &h.UnderReplicatedCount}} {
		if c.in == nil {
			continue
		}
		if *c.in < 0 || *c.in > math.MaxInt32 {
			return HealthOverview{}, fmt.Errorf("health overview: %s %d out of range", c.name, *c.in)
		}
		*c.out = max(*c.out, int(*c.in))
	}
	return h, nil
}

// decodeNodeConfig parses the body of GET /v1/node_config. A missing or null node_id is an
// error: the caller must never guess which broker runs there.
func decodeNodeConfig(r io.Reader, limit int64) (NodeConfig, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return NodeConfig{}, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return NodeConfig{}, err
	}
	var w wireNodeConfig
	if err := json.Unmarshal(body, &w); err != nil {
		return NodeConfig{}, fmt.Errorf("decoding node config: %w", err)
	}
	if w.NodeID == nil {
		return NodeConfig{}, errors.New("node config: node_id is not set")
	}
	if *w.NodeID < 0 || *w.NodeID > math.MaxInt32 {
		return NodeConfig{}, fmt.Errorf("node config: node_id %d out of range", *w.NodeID)
	}
	nc := NodeConfig{NodeID: int(*w.NodeID)}
	if a := w.AdvertisedRPCAPI; a != nil {
		if a.Port < 0 || a.Port > 65535 {
			return NodeConfig{}, fmt.Errorf("node config: advertised_rpc_api port %d out of range", a.Port)
		}
		nc.AdvertisedRPCAddress, nc.AdvertisedRPCPort = a.Address, int(a.Port)
	}
	if w.DataDirectory != nil {
		nc.DataDirectory = w.DataDirectory.Path
	}
	return nc, nil
}

// decodeDecommissionStatus parses the body of GET /v1/brokers/{id}/decommission.
func decodeDecommissionStatus(r io.Reader, limit int64) (DecommissionStatus, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return DecommissionStatus{}, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return DecommissionStatus{}, err
	}
	var w wireDecommissionStatus
	if err := json.Unmarshal(body, &w); err != nil {
		return DecommissionStatus{}, fmt.Errorf("decoding decommission status: %w", err)
	}
	if w.Finished == nil {
		return DecommissionStatus{}, errors.New("decommission status: missing finished")
	}
	st := DecommissionStatus{
		Finished:           *w.Finished,
		AllocationFailures: w.AllocationFailures,
		MovingPartitions:   len(w.Partitions),
	}
	if w.ReplicasLeft != nil {
		if *w.ReplicasLeft < 0 || *w.ReplicasLeft > math.MaxInt32 {
			return DecommissionStatus{}, fmt.Errorf("decommission status: replicas_left %d out of range", *w.ReplicasLeft)
		}
		st.ReplicasLeft = int(*w.ReplicasLeft)
	}
	return st, nil
}

// expectJSON rejects bodies whose top-level value is not of the expected kind ('[' or '{'),
// including null, which json.Unmarshal would silently accept.
func expectJSON(body []byte, open byte) error {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return errors.New("empty body")
	}
	if trimmed[0] != open {
		kind := "an array"
		if open == '{' {
			kind = "an object"
		}
		return fmt.Errorf("body is not %s: starts with %q", kind, snippet(trimmed, 16))
	}
	return nil
}

// maxMessageLen bounds the error message kept from a failed response.
const maxMessageLen = 256

// errorMessage extracts a readable message from an error response body: seastar's
// {"message": ..., "code": ...} when present, the text itself otherwise.
func errorMessage(body []byte) string {
	var w wireError
	if json.Unmarshal(body, &w) == nil && w.Message != "" {
		return snippet([]byte(w.Message), maxMessageLen)
	}
	return snippet(bytes.TrimSpace(body), maxMessageLen)
}

// snippet returns at most n bytes of b as valid UTF-8, marking a cut with "...".
func snippet(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// decodePostRestartProbe reads load_reclaimed_pc from a post_restart_probe answer
// (redpanda-data/redpanda src/v/redpanda/admin/api-doc/broker.json; common-go rpadmin
// PostRestartCheckResult): a percentage, 0 to 100.
func decodePostRestartProbe(r io.Reader, limit int64) (int, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return 0, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return 0, err
	}
	var w struct {
		LoadReclaimed *int64 `json:"load_reclaimed_pc"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return 0, fmt.Errorf("decoding post-restart probe: %w", err)
	}
	if w.LoadReclaimed == nil {
		return 0, errors.New("post-restart probe: load_reclaimed_pc is not set")
	}
	if *w.LoadReclaimed < 0 || *w.LoadReclaimed > 100 {
		return 0, fmt.Errorf("post-restart probe: load_reclaimed_pc %d out of range", *w.LoadReclaimed)
	}
	return int(*w.LoadReclaimed), nil
}

// decodePreRestartProbe reads the risks of a pre_restart_probe answer, {"risks": {...}}
// (redpanda-data/redpanda src/v/redpanda/admin/api-doc/broker.json; common-go rpadmin
// PreRestartCheckResult). An answer without risks is refused: it would read as no risk.
func decodePreRestartProbe(r io.Reader, limit int64) (RestartRisks, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return RestartRisks{}, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return RestartRisks{}, err
	}
	var w struct {
		Risks *RestartRisks `json:"risks"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return RestartRisks{}, fmt.Errorf("decoding pre-restart probe: %w", err)
	}
	if w.Risks == nil {
		return RestartRisks{}, errors.New("pre-restart probe: risks is not set")
	}
	return *w.Risks, nil
}

// decodeFeatures reads the logical versions of a GET /v1/features answer (features.json
// features_response; common-go rpadmin FeaturesResponse reads cluster_version). An answer
// without cluster_version or node_latest_version is refused: the version check must not guess.
func decodeFeatures(r io.Reader, limit int64) (Features, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return Features{}, err
	}
	if err := expectJSON(body, '{'); err != nil {
		return Features{}, err
	}
	var w struct {
		ClusterVersion         *int64 `json:"cluster_version"`
		OriginalClusterVersion *int64 `json:"original_cluster_version"`
		NodeEarliestVersion    *int64 `json:"node_earliest_version"`
		NodeLatestVersion      *int64 `json:"node_latest_version"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return Features{}, fmt.Errorf("decoding features: %w", err)
	}
	if w.ClusterVersion == nil || w.NodeLatestVersion == nil {
		return Features{}, errors.New("features: cluster_version or node_latest_version is not set")
	}
	f := Features{ClusterVersion: *w.ClusterVersion, NodeLatestVersion: *w.NodeLatestVersion, OriginalClusterVersion: -1, NodeEarliestVersion: -1}
	if w.OriginalClusterVersion != nil {
		f.OriginalClusterVersion = *w.OriginalClusterVersion
	}
	if w.NodeEarliestVersion != nil {
		f.NodeEarliestVersion = *w.NodeEarliestVersion
	}
	return f, nil
}

// decodeClusterPartitions parses the body of GET /v1/cluster/partitions: an array of
// cluster_partition (api-doc/cluster.json), each with ns, topic, partition_id and replicas of
// node_id and core. A partition without replicas is refused: it would read as needing none.
func decodeClusterPartitions(r io.Reader, limit int64) ([]Partition, error) {
	body, err := readCapped(r, limit)
	if err != nil {
		return nil, err
	}
	if err := expectJSON(body, '['); err != nil {
		return nil, err
	}
	var wire []struct {
		NS          *string `json:"ns"`
		Topic       *string `json:"topic"`
		PartitionID *int64  `json:"partition_id"`
		Replicas    []struct {
			NodeID *int64 `json:"node_id"`
		} `json:"replicas"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, fmt.Errorf("decoding cluster partitions: %w", err)
	}
	out := make([]Partition, 0, len(wire))
	for i, w := range wire {
		if w.NS == nil || w.Topic == nil || w.PartitionID == nil || len(w.Replicas) == 0 {
			return nil, fmt.Errorf("cluster partition entry %d: ns, topic, partition_id or replicas missing", i)
		}
		if *w.PartitionID < 0 || *w.PartitionID > math.MaxInt32 {
			return nil, fmt.Errorf("cluster partition entry %d: partition_id %d out of range", i, *w.PartitionID)
		}
		p := Partition{Namespace: *w.NS, Topic: *w.Topic, ID: int(*w.PartitionID)}
		for _, rep := range w.Replicas {
			if rep.NodeID == nil || *rep.NodeID < 0 || *rep.NodeID > math.MaxInt32 {
				return nil, fmt.Errorf("cluster partition entry %d: a replica without a usable node_id", i)
			}
			p.Replicas = append(p.Replicas, int(*rep.NodeID))
		}
		out = append(out, p)
	}
	return out, nil
}
