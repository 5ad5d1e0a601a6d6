// Package admintest simulates Redpanda broker clusters for tests and local runs, answering as
// Redpanda's admin API v1 does on the wire.
//
// # Addresses
//
// Each simulated broker listens on its own port of Options.Host (127.0.0.1 unless set), as a
// real broker does, and answers only at the root of scheme://host:port: Redpanda's own client,
// rpadmin (redpanda-data/common-go), takes nothing else, and a path-prefixed URL gets 404. A
// cluster reserves a block of Options.PortsPerCluster consecutive ports (aligned to its size,
// between 20000 and 32767, below Linux's ephemeral range) when it is first named
// (Server.Cluster), and the broker with pod ordinal O answers at SCHEME://HOST:(Cluster.AdminPort()+O).
// An operator reaches them with Server.BrokerAddressTemplate, SCHEME://HOST:{{add .Port .Ordinal}},
// when the BrokerCluster's spec.adminAPI.port is the simulated cluster's AdminPort: e2e tests,
// the race experiment and make run create their BrokerClusters so. Tests whose BrokerClusters
// keep the default admin port use Server.AddressTemplateFor(clusters...), which names each
// given cluster's ports outright. Cluster.URLs and Cluster.Config give these URLs (with the CA
// and superuser credentials) to in-process clients.
//
// Server.Transport answers the same URLs in process, with no connection, for tests that make
// many thousands of calls; faults that act on the connection (Refuse, Hang, Latency) need the
// listener, and so do clusters that require client certificates.
//
// # Pools
//
// A cluster's brokers may run in pools, as a BrokerCluster's spec.pools has them. The default
// pool is the cluster itself: StatefulSet <cluster>, pods <cluster>-<ordinal>, and every
// ordinal-keyed Cluster method (Join, Leave, Down, NodeID, SyncPods, SetPodVersion, ...) acts on
// it. Cluster.Pool(name) names the pool <name>: StatefulSet and headless Service
// <cluster>-<name>, pods <cluster>-<name>-<ordinal>. On first use it reserves a block of
// Options.PortsPerCluster ports of its own (Pool.AdminPort, Pool.URLs, Pool.Config), and its
// *Pool has the same pod methods for its own pods: Join, Leave, Down, NodeID, SyncPods,
// SetPodVersion, SetPodVolume, SetBrokerFault, SetRack, SetDisk, SetRestartRisks, RestartRisks
// and SetControllerLeader. Cluster.Pool("") is the default pool; Cluster.Pools lists the named
// ones. A pod is known by its pool and its ordinal together: <cluster>-blue-0 and <cluster>-0
// are two pods, each with its own broker. Membership stays the cluster's, as Redpanda knows no
// pools: node IDs are unique and never reused across every pool (members_manager.cc
// get_or_assign_node_id), one broker at a time may be in maintenance, and any broker answers
// for all of them. A pool broker advertises its own pod's stable host name,
// <cluster>-<pool>-<ordinal>.<cluster>-<pool>.<namespace>.svc.cluster.local. BrokerState,
// Recovery and Call carry the pool ("" for the default pool); reports name a pool's pod
// "pool blue ordinal 0".
//
// Both address templates reach a pool's brokers when they are rendered with .Name
// <cluster>-<pool> and .Ordinal the pod's ordinal, as the operator renders them. .Port is the
// cluster's for every pool, so <cluster>-0 and <cluster>-blue-0 differ only by .Name: each
// template names the pools that exist when it is made, and a test declares its pools
// (Cluster.Pool) before it renders the template it starts the operator with. Without named
// pools BrokerAddressTemplate is SCHEME://HOST:{{add .Port .Ordinal}}.
//
// # What it models, and from where
//
// Paths, status codes and bodies follow redpanda-data/redpanda's sources, cited at each handler:
// src/v/redpanda/admin/server.cc, partition.cc and api-doc/broker.json, cluster.json,
// partition.json; src/v/cluster/members_table.cc, members_manager.cc, health_monitor_backend.cc;
// src/v/security/request_auth.cc; src/v/config/node_config.cc, tls_config.cc and configuration.cc.
//
//   - GET /v1/brokers: members (removed ones are not listed) with what get_brokers always writes
//     (node_id, num_cores, membership_status, is_alive for a running pod, internal_rpc_address
//     and internal_rpc_port, maintenance_status, in_fips_mode "disabled"; no rack), and the
//     version, recovery_mode_enabled, disk_space and drain status only for brokers that report
//     (alive), 503 "Unable to get cluster health: ..." while the health report is missing
//     (Cluster.SetHealthReportMissing).
//   - GET /v1/brokers/{id}: no is_alive and no version, as get_broker_handler; 404 "broker with
//     id: N not found".
//   - PUT /v1/brokers/{id}/decommission and /recommission: 404 "broker with id N not found" for a
//     broker that is not (or no longer) a member, 400 "can not update broker N state, invalid
//     state transition requested" for a decommission of a broker that is not active or a
//     recommission of one that is not draining; 400 "Broker id: X, must be an integer".
//   - GET /v1/brokers/{id}/decommission: 200 {"finished":true,"replicas_left":0} and nothing
//     else once removed (seastar leaves out lists nothing was pushed to, so allocation_failures
//     and partitions appear only when they hold something), 400 "Node N is not
//     decommissioning" while active, 404 "Node N does not exists" for unknown IDs; while a
//     drain's replicas have nowhere to go they all show as allocation_failures.
//   - PUT and DELETE /v1/brokers/{id}/maintenance: 400 "Maintenance mode may not be used on a
//     single node cluster", 404 for unknown brokers, one broker in maintenance at a time (400
//     invalid state transition for a second), enabling again and disabling when off succeed.
//   - GET /v1/node_config: the node ID of the broker the addressed pod runs (null when it runs
//     none), advertised_rpc_api, data_directory.
//   - GET /v1/broker/post_restart_probe: load_reclaimed_pc of the broker the addressed pod runs,
//     100 unless Cluster.SetRecoveryTime makes a restarted broker reclaim its load evenly over a
//     time (Cluster.Recoveries lists each such recovery); 404 "Not found" from a broker older
//     than v25.1, which has no such route.
//   - Partitions: the topic kafka/simulated, each partition with replicas on replication-factor
//     distinct members, Options.ReplicasPerBroker replicas on each broker
//     (cluster/scheduling/constraints.h distinct_nodes; Cluster.PartitionReplicas).
//   - GET /v1/broker/pre_restart_probe: the partitions with a replica on the addressed pod's
//     broker that restarting it would affect, by risk: at replication factor 1 rf1_offline; above
//     it, when the partition's other replicas that are alive make no majority, unavailable and
//     full_acks_produce_unavailable; plus what Cluster.SetRestartRisks adds (Cluster.RestartRisks
//     tells a test the same). 404 before v25.1.
//   - GET /v1/features: cluster_version (the active logical version), original_cluster_version,
//     and node_earliest_version and node_latest_version of the binary the addressed pod runs
//     (server.cc register_features_routes, api-doc/features.json; logical versions from
//     features/feature_table.h release_version, one a feature release, the binary's range three
//     wide as feature_table.cc has it). The active version moves up to the highest a member
//     reports once every member is alive and reports it (cluster/feature_manager.cc), never
//     down (features.go). A custom tag counts as Options.Version. A pod whose binary's range
//     does not hold the active version is refused when it joins, as service.cc join_node
//     refuses it: its pod runs, "booting", its broker not alive (Server.RefusedJoins). With the
//     range three wide, a skip of one feature release (v24.2 to v25.1) still joins, as it
//     would; a broker put back on an older release once the active version moved does not.
//   - GET /v1/cluster/health_overview: nodes_down for members not alive, the controller (the
//     lowest alive member unless Cluster.SetControllerLeader chose another; -1 and
//     "no_elected_controller" when none), leaderless partitions
//     when a broker is down at replication factor 1, under-replicated ones when a broker is down
//     at a higher factor or fewer brokers are alive than the factor, "no_health_report".
//   - GET /v1/cluster_config (include_defaults; without it only values that differ from the
//     default, written or not, as config/property.h is_default; key: 400 "Unknown property {key}"), PUT
//     /v1/cluster_config and GET /v1/cluster_config/status, superuser routes, as server.cc's
//     cluster config handlers and cluster/config_manager.cc: a PUT body needs upsert and remove;
//     without force=true every property is validated first and any refusal answers 400 with a
//     JSON object of property name to reason ("Unknown property", "too small, must be at least
//     N", "expected type boolean", ...), changing nothing; dry_run=true stops after validation;
//     a write whose upserts all change nothing keeps the version, any other adds one. Running
//     brokers apply a write at once; a broker that is down applies it when it joins. Each
//     broker's restart flag is true once a property that needs a restart changed, until its pod
//     joins again (Join). Modelled properties (configuration.cc): enable_rack_awareness,
//     auto_create_topics_enabled, enable_sasl, log_segment_size, default_topic_replications,
//     sasl_mechanisms, superusers, admin_api_require_auth, storage_min_free_bytes,
//     storage_space_alert_free_threshold_percent (no restart) and kafka_rpc_server_tcp_recv_buf (restart); any
//     other name is unknown. A new cluster starts at config version 0 (not confirmed against
//     Redpanda, whose bootstrap writes its own first version).
//   - GET /v1/cluster/partitions: every partition of kafka/simulated with its replicas (node_id,
//     core), leader_id and disabled, as server.cc get_cluster_partitions_handler writes
//     cluster_partition (api-doc/cluster.json); with_internal changes nothing, as the simulator
//     has no internal topics. The brokers list carries each broker's rack (Cluster.SetRack) and
//     data disk (Cluster.SetDisk, 90 GiB free of 100 GiB by default), what the scale-down
//     pre-flight reads; storage_min_free_bytes and storage_space_alert_free_threshold_percent are
//     modelled cluster properties.
//   - GET /v1/partitions/redpanda/controller/0: leader_id and the replicas, leader first.
//   - GET /v1/status/ready: {"status":"ready"}, "booting" for a pod whose join was refused.
//   - GET, POST /v1/security/users, PUT and DELETE /v1/security/users/{user} (users.go), superuser
//     routes, as security.cc's handlers: the list is a JSON array of names; the writes are
//     redirected (307) to the controller leader, 503 without one; a body's errors are
//     parse_scram_credential's 400s ("String algo missing", "Unknown scram algorithm: X", ...)
//     and "Invalid SCRAM username {X}"; a create of a user that exists with the same password
//     and mechanism, and a delete of one that does not exist, succeed; a create with another
//     password is 500 "Unexpected cluster error: User already exists", an update of no user 500
//     "Unexpected cluster error: User does not exist". The credential store holds the superuser
//     and Security.Users too, and a user made here authenticates (Cluster.User reads it).
//   - Authentication (Security.Username, Password and Users: the server's Options for clusters
//     made by Server.Cluster, or per cluster with Server.NewCluster): a malformed Basic header is 400
//     "Malformed Authorization header", another scheme 400 "Unsupported Authorization method";
//     with a user set, wrong credentials are 401 "Unauthorized", none on a user route 401
//     "Forbidden (authentication is required)", none or a non-superuser on a superuser route
//     (PUT/DELETE under /v1/brokers/{id}, node_config) 403 "Forbidden (superuser role
//     required)"; health_overview and status/ready are public.
//   - TLS (Security.TLS, likewise; Options.TLS also makes BrokerAddressTemplate https): the
//     listeners serve a certificate for 127.0.0.1, ::1, localhost and Options.Host, signed by a
//     CA made at Start (Server.CACertPEM); their URLs use https. One server can thus run a TLS
//     cluster with auth beside plain ones.
//   - Client certificates (Security.ClientCAPEM, with TLS): the listeners require a client
//     certificate that chains to the given CAs and refuse the handshake without one, before any
//     request is read (so nothing is logged), as admin_api_tls with require_client_auth: true and
//     a truststore_file does (src/v/config/tls_config.cc, node_config.cc admin_api_tls). As
//     tls_config::validate does, a client CA without TLS is refused.
//
// # The cluster's life
//
//   - Brokers join with node IDs that never equal their pod ordinal and are never reused; a pod
//     whose broker is still a member keeps it across restarts (Join, Down), at the version set by
//     SetPodVersion.
//   - A decommission drains for the cluster's drain time (by the injectable Clock), then the
//     broker leaves the member list; a recommission stops it. A drain makes progress only while at
//     least replication-factor other brokers are active (SetReplicationFactor), so a drain larger
//     than the remaining brokers stays stuck with allocation failures until a scale-up.
//   - Maintenance mode moves leadership off the broker over SetMaintenanceDrainTime: its
//     maintenance_status counts partitions transferring until finished.
//   - AddGhost adds a broker that is active but never alive and runs in no pod.
//   - With SetPodVolume naming each pod's data, a pod that comes back on the volume of a removed
//     broker is refused ("Preventing decommissioned node N with UUID U from joining the cluster",
//     Server.RefusedJoins) and no broker joins.
//   - Options.AdvertiseLoopback (or Cluster.SetAdvertiseLoopback) makes brokers advertise 127.0.0.1 as internal RPC address
//     (Redpanda's default), so the address never names the pod; node_config still tells the ID.
//   - A pod that is not running refuses connections (the connection is closed unanswered).
//
// Tests drive membership with Cluster.Join, Leave and Down (Pool's for a named pool's pods), or
// let Cluster.SyncPods and Pool.SyncPods translate the pods a StatefulSet runs (test/brokersim
// does so from real Pods). Drains finish by the Options.Clock (FakeClock.Advance) or at once
// with Cluster.FinishDrains.
//
// # Faults
//
// Faults can be set per server, cluster or broker at any time (SetFault, Cluster.SetFault,
// Cluster.SetBrokerFault): status codes, latency, hangs, refused connections, answers lost after
// the broker acted, Redirect (307 to the controller leader's own URL, with redirect=N counted in
// the query and Retry-After: 1 on every second redirect, as server.cc does, without acting; the leader answers
// normally) and Timeout (held for Options.NodeOperationTimeout, 5 s by default, by the simulator's
// clock, then 504 "Timeout: Timeout occurred while processing request", without acting).
// FakeClock.After lets a Timeout wait on the fake clock.
//
// # The call log
//
// Every call is logged in order (Server.Calls, Cluster.Calls) with its broker, method, path,
// node ID, user, status and fault. Server.DoubleDecommissions and Server.LeftBeforeDecommission
// report the two mistakes an operator must never make in a scale-down; Server.Overlaps reports a
// broker put into maintenance or restarted while another broker of its cluster was in
// maintenance or restarting; Server.RefusedJoins reports refused rejoins.
package admintest
