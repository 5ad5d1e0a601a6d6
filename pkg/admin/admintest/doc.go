// Package admintest simulates broker clusters for tests and local runs. One loopback HTTP server
// serves the admin API v1 paths of many clusters; the broker with pod ordinal O of cluster
// namespace/name answers under /namespace/name/O. Point the operator at it with
// Server.AddressTemplate.
//
// The simulator models what the operator depends on:
//   - brokers join with node IDs that never equal their pod ordinal and are never reused;
//   - a decommission drains for the cluster's drain time (by an injectable Clock), then the
//     broker leaves the member list; a recommission stops a drain in progress;
//   - answers follow Redpanda's admin server: 404 "broker with id N not found" for a broker that
//     is not (or no longer) a member, 400 "invalid state transition" for a decommission of a
//     draining broker or a recommission of an active one, and for decommission status 200
//     finished once removed, 400 while active, 404 for unknown IDs;
//   - a pod that is not running refuses connections (the connection is closed unanswered);
//   - GET /v1/brokers/{id} (no is_alive, no version; 404 "broker with id: N not found"),
//     GET /v1/node_config (the node ID of the broker the addressed pod runs, null when none),
//     GET /v1/cluster/health_overview (nodes_down for members whose pod is not running, the
//     controller being the lowest alive member), PUT and DELETE /v1/brokers/{id}/maintenance
//     (one broker at a time, 400 on a single-node cluster; a broker in maintenance reports
//     draining and finished), GET /v1/partitions/redpanda/controller/0 (leader first) and
//     GET /v1/status/ready.
//
// Tests drive membership with Cluster.Join, Leave and Down, or let Cluster.SyncPods translate
// the pods a StatefulSet runs. Drains finish by the Options.Clock (FakeClock.Advance) or at once
// with Cluster.FinishDrains.
//
// Every call is logged in order (Server.Calls). Server.DoubleDecommissions and
// Server.LeftBeforeDecommission report the two mistakes an operator must never make. Faults
// (status codes, latency, hangs, refused connections, answers lost after the broker acted) can be
// set per server, cluster or broker at any time.
package admintest
