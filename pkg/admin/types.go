package admin

import "context"

// MembershipStatus is a broker's membership state as the admin API reports it.
// Values the package does not know are kept as given.
type MembershipStatus string

// Membership states Redpanda reports (model::membership_state).
const (
	MembershipActive   MembershipStatus = "active"
	MembershipDraining MembershipStatus = "draining"
	MembershipRemoved  MembershipStatus = "removed"
)

// Broker is one entry of GET /v1/brokers, or the answer of GET /v1/brokers/{id}.
type Broker struct {
	NodeID           int
	MembershipStatus MembershipStatus
	// IsAlive is false when absent: GET /v1/brokers/{id} does not report it (server.cc,
	// get_broker_handler), only the list does.
	IsAlive bool
	// InternalRPCAddress is the host the broker advertises for internal RPC; a pod's stable host
	// name only when Redpanda is started with --advertise-rpc-addr set to it (default 127.0.0.1).
	InternalRPCAddress string
	InternalRPCPort    int
	// Version is the Redpanda version the broker runs ("v24.2.4"), empty when not reported: the
	// list fills it from the health report; GET /v1/brokers/{id} never does.
	Version string
	// MaintenanceStatus is the broker's maintenance mode; the zero value when not reported.
	MaintenanceStatus MaintenanceStatus
	// Rack is the rack the broker's node_config names, "" when it names none (get_brokers
	// writes rack only when set).
	Rack string
	// Disk is the broker's data directory's space, from the health report; Known false when
	// the broker does not report it (not alive, or no report yet).
	Disk DiskSpace
}

// DiskSpace is broker.json's disk_space_info of a broker's data directory: free and total
// bytes as its storage node reports them.
type DiskSpace struct {
	Known       bool
	Free, Total int64
}

// Partition is one entry of GET /v1/cluster/partitions (redpanda-data/redpanda
// src/v/redpanda/admin/api-doc/cluster.json, cluster_partition; server.cc
// get_cluster_partitions_handler): a partition of a topic and the node IDs of its replicas, as
// the controller's topic table assigns them.
type Partition struct {
	Namespace, Topic string
	ID               int
	Replicas         []int
}

// MaintenanceStatus mirrors broker.json's "maintenance_status". Draining comes from the members
// table; the rest from the broker's drain manager, reported through the health monitor, and stays
// zero while that report is missing.
type MaintenanceStatus struct {
	// Draining: maintenance mode is on for the broker (it stays true once the drain finished).
	Draining bool
	// Finished: leadership has been moved off the broker.
	Finished bool
	// Errors: the drain hit errors (it retries on its own).
	Errors bool
	// Partitions, Eligible, Transferring and Failed count the partitions the drain considered,
	// those whose leadership it may move, those moving now, and those it failed to move.
	Partitions, Eligible, Transferring, Failed int
}

// DecommissionStatus is the answer of GET /v1/brokers/{id}/decommission.
type DecommissionStatus struct {
	// Finished is true once the broker has been drained and removed from the cluster.
	Finished bool
	// ReplicasLeft counts partition replicas still hosted by the broker.
	ReplicasLeft int
	// AllocationFailures names partitions ("ns/topic/partition") that could not be placed elsewhere.
	AllocationFailures []string
	// MovingPartitions counts partitions currently moving away from the broker.
	MovingPartitions int
}

// HealthOverview is the answer of GET /v1/cluster/health_overview (cluster.json,
// "cluster_health_overview").
type HealthOverview struct {
	IsHealthy bool
	// UnhealthyReasons names why the cluster is unhealthy (Redpanda's words, e.g. "nodes_down",
	// "leaderless_partitions", "under_replicated_partitions", "no_elected_controller",
	// "no_health_report"); empty when healthy or not reported.
	UnhealthyReasons []string
	// ControllerID is the controller leader's node ID, -1 when none is elected.
	ControllerID int
	// AllNodes and NodesDown are node IDs; NodesInRecoveryMode too, empty when not reported.
	AllNodes, NodesDown, NodesInRecoveryMode []int
	// LeaderlessPartitions and UnderReplicatedPartitions name partitions as "ns/topic/partition";
	// Redpanda truncates the lists, so the counts can be larger.
	LeaderlessPartitions, UnderReplicatedPartitions []string
	// LeaderlessCount and UnderReplicatedCount are Redpanda's totals; when absent (older
	// releases), the lengths of the lists.
	LeaderlessCount, UnderReplicatedCount int
}

// NodeConfig is what GET /v1/node_config of one broker says about that broker itself.
type NodeConfig struct {
	// NodeID is the node ID of the broker serving the request.
	NodeID int
	// AdvertisedRPCAddress and AdvertisedRPCPort are advertised_rpc_api, empty and zero when not
	// set (the broker then advertises rpc_server).
	AdvertisedRPCAddress string
	AdvertisedRPCPort    int
	// DataDirectory is data_directory's path.
	DataDirectory string
}

// Client is what the controller depends on. Every call honours ctx and the configured timeout,
// and makes at most one request per broker URL (plus one per redirect it follows): retries belong
// to the caller's workqueue.
type Client interface {
	// Brokers lists the cluster's members (removed brokers are not listed).
	Brokers(ctx context.Context) ([]Broker, error)
	// BrokersFrom is Brokers asked of the broker at Config.URLs[ordinal], and only that one: the
	// controller leader's list is the authoritative one, where another broker's may lag.
	BrokersFrom(ctx context.Context, ordinal int) ([]Broker, error)
	// Broker describes one member. ErrBrokerNotFound: no such member.
	Broker(ctx context.Context, nodeID int) (Broker, error)
	// HealthOverview is the cluster's health as the controller sees it.
	HealthOverview(ctx context.Context) (HealthOverview, error)
	// Decommission starts draining a broker. ErrAlreadyDecommissioned: it is draining already;
	// ErrBrokerNotFound: no such member (never existed, or already removed).
	Decommission(ctx context.Context, nodeID int) error
	// Recommission stops a drain in progress. ErrNotDecommissioning: Redpanda refused the
	// transition: the broker is not draining, or its drain is too far along to be stopped. Only
	// Brokers or Broker tell which.
	Recommission(ctx context.Context, nodeID int) error
	// ClusterPartitions lists every partition of every topic, internal ones included, with its
	// replicas (GET /v1/cluster/partitions?with_internal=true; Redpanda 23.3 and later, added by
	// redpanda-data/redpanda commit 7c73a28e92). ErrNotFound: the brokers predate the route.
	ClusterPartitions(ctx context.Context) ([]Partition, error)
	// DecommissionStatus reports drain progress; Finished once the broker has been removed.
	// ErrNotDecommissioning: the broker is an active member.
	DecommissionStatus(ctx context.Context, nodeID int) (DecommissionStatus, error)
	// EnableMaintenance puts a broker into maintenance mode (its leadership drains away); done
	// again on a broker in maintenance, it succeeds. ErrInvalidStateTransition: another broker is
	// in maintenance already; ErrBadRequest: e.g. a single-node cluster.
	EnableMaintenance(ctx context.Context, nodeID int) error
	// DisableMaintenance takes a broker out of maintenance mode; it succeeds when it was not in it.
	DisableMaintenance(ctx context.Context, nodeID int) error
	// NodeConfig asks the broker at Config.URLs[ordinal], and only that one, for its own node
	// configuration: which node ID runs there. It never fails over to another broker.
	NodeConfig(ctx context.Context, ordinal int) (NodeConfig, error)
	// PostRestartProbe asks the broker at Config.URLs[ordinal], and only that one, how much of its
	// load it has reclaimed since it last started: load_reclaimed_pc, the share (0 to 100) of the
	// in-sync replicas it hosts that have caught up (GET /v1/broker/post_restart_probe, Redpanda
	// 25.1 and later; redpanda-data/common-go rpadmin/api_broker.go, PostRestartProbe).
	// ErrNotFound: the broker predates the probe.
	PostRestartProbe(ctx context.Context, ordinal int) (int, error)
	// PreRestartProbe asks the broker at Config.URLs[ordinal], and only that one, what
	// restarting it would risk, partition by partition (GET /v1/broker/pre_restart_probe,
	// Redpanda 25.1 and later; common-go rpadmin/api_broker.go, RestartRisks).
	// ErrNotFound: the broker predates the probe.
	PreRestartProbe(ctx context.Context, ordinal int) (RestartRisks, error)
	// Features asks the broker at Config.URLs[ordinal], and only that one, for the logical
	// versions its feature table holds (GET /v1/features): the cluster's active version as it
	// sees it, and the range its own binary supports, which is about the broker that answers.
	Features(ctx context.Context, ordinal int) (Features, error)
}

// Features is the version part of GET /v1/features (redpanda-data/redpanda
// src/v/redpanda/admin/server.cc register_features_routes, api-doc/features.json
// features_response). The versions are logical versions (src/v/features/feature_table.h
// release_version: 13 is v24.2.1, 14 v24.3.1), not release numbers. The active version moves up
// only once every member is up and reports a binary that supports the new one
// (src/v/cluster/feature_manager.cc, do_maybe_update_active_version), and a broker whose range
// does not hold the active version is refused when it joins (src/v/cluster/service.cc,
// join_node).
type Features struct {
	// ClusterVersion is the cluster's active logical version, as the answering broker's feature
	// table holds it (-1 while that table is not initialised).
	ClusterVersion int64
	// OriginalClusterVersion is the logical version the cluster was created at.
	OriginalClusterVersion int64
	// NodeEarliestVersion and NodeLatestVersion are the range of logical versions the answering
	// broker's binary supports.
	NodeEarliestVersion, NodeLatestVersion int64
}

// RestartRisks are the partitions restarting one broker would affect, by risk, as its
// pre_restart_probe names them (ns/topic/partition), each list capped by the broker (128 by
// default). Redpanda's src/v/redpanda/admin/api-doc/broker.json defines the categories.
type RestartRisks struct {
	// RF1Offline: partitions of RF=1 topics whose only replica is on the broker; they are
	// offline while it restarts.
	RF1Offline []string `json:"rf1_offline"`
	// FullAcksProduceUnavailable: partitions that may reject acks=all produce while it restarts.
	FullAcksProduceUnavailable []string `json:"full_acks_produce_unavailable"`
	// Unavailable: partitions that may reject both produce and consume while it restarts.
	Unavailable []string `json:"unavailable"`
	// Acks1DataLoss: partitions that may lose data produced with acks=1 if it restarts.
	Acks1DataLoss []string `json:"acks1_data_loss"`
}
