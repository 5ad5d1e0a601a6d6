// Package admin is a client for the brokers' admin API: the few Redpanda Admin API v1 calls an
// operator needs before it removes a broker. It depends on no Kubernetes package, so any program
// can use it; package admintest simulates broker clusters for tests and local runs.
//
// # Calls
//
//	GET    /v1/brokers                     Client.Brokers
//	GET    /v1/brokers/{id}                Client.Broker
//	GET    /v1/cluster/health_overview     Client.HealthOverview
//	PUT    /v1/brokers/{id}/decommission   Client.Decommission
//	PUT    /v1/brokers/{id}/recommission   Client.Recommission
//	GET    /v1/brokers/{id}/decommission   Client.DecommissionStatus
//	PUT    /v1/brokers/{id}/maintenance    Client.EnableMaintenance
//	DELETE /v1/brokers/{id}/maintenance    Client.DisableMaintenance
//	GET    /v1/node_config                 Client.NodeConfig (of Config.URLs[ordinal] only)
//
// NewClusterConfigClient returns a ClusterConfigClient, for the cluster configuration calls of
// `rpk cluster config` (rpadmin api_config.go):
//
//	GET    /v1/cluster_config?include_defaults=B  ClusterConfigClient.ClusterConfig
//	PUT    /v1/cluster_config                     ClusterConfigClient.PatchClusterConfig
//	GET    /v1/cluster_config/status              ClusterConfigClient.ClusterConfigStatus
//
// A write Redpanda refuses (400 with a JSON object of property name to reason, server.cc
// patch_cluster_config_handler) is a *ConfigValidationError that matches ErrBadRequest and
// changed nothing. These calls go to any broker and move to the next after ErrUnavailable,
// writes included: writing the same values again changes nothing.
//
// NewUsersClient returns a UsersClient, for the SCRAM user calls of `rpk security user`
// (rpadmin api_user.go; src/v/redpanda/admin/security.cc), each for a superuser only:
//
//	GET    /v1/security/users          UsersClient.Users
//	POST   /v1/security/users          UsersClient.CreateUser
//	PUT    /v1/security/users/{user}   UsersClient.UpdateUser
//	DELETE /v1/security/users/{user}   UsersClient.DeleteUser
//
// A create of a user that exists with the same password and a delete of one that does not
// exist succeed, so these writes may be sent again after a lost answer.
//
// NodeConfig tells which node ID runs behind one broker URL, so it asks that broker and no other:
// no failover, no redirect. A node_config without a node_id is an error, never a guess.
//
// # Errors
//
// Every error a call returns is an *Error; errors.Is tells the kind. Redpanda answers 400 and 404
// for several reasons, so the kind depends on the message too (src/v/redpanda/admin/server.cc):
//
//	ErrBrokerNotFound          404 whose message names the broker: "broker with id N not found",
//	                           "broker with id: N not found", "Node N does not exists"
//	ErrNotFound                any other 404, e.g. seastar's "Not found" for an unknown route
//	ErrAlreadyDecommissioned   400 "... invalid state transition requested" on decommission
//	ErrNotDecommissioning      400 "... invalid state transition requested" on recommission (not
//	                           draining, or too far along its drain: members_manager.cc refuses a
//	                           demoted voter), and 400 "Node N is not decommissioning" on
//	                           decommission status
//	ErrInvalidStateTransition  400 "... invalid state transition requested" on any call (e.g.
//	                           maintenance while another broker is in it); the two above match it too
//	ErrBadRequest              any other 400: malformed Authorization header, non-integer ID,
//	                           maintenance on a single-node cluster
//	ErrUserExists              500 "Unexpected cluster error: User already exists" on a create
//	                           of a user that has another password
//	ErrUserNotFound            500 "Unexpected cluster error: User does not exist" on an update
//	ErrUnauthorized            401
//	ErrForbidden               403
//	ErrTLS                     the TLS handshake failed for its certificates: the broker sent a
//	                           TLS alert (client certificate required or refused), or its own
//	                           certificate did not verify against Config.CACertPEM
//	ErrUnavailable             no answer: refused, reset, timed out; 5xx (503 while the health
//	                           report is missing, 504 after node_management_operation_timeout_ms),
//	                           429, 408; a 307 or 308 the client does not follow (see below)
//	ErrBadResponse             malformed, oversized or incomplete body; an undocumented status,
//	                           including any other 3xx and a redirect without a usable Location
//
// When the caller's context ends, the error matches none of them and wraps ctx.Err(); nor does
// an invalid argument (a negative node ID, a NodeConfig ordinal with no URL). NewClient's
// errors, about the Config, are plain errors.
//
// # Brokers, redirects, timeouts, retries
//
// Config.URLs name every broker's admin API; any broker answers for the whole cluster. A call
// starts with the broker that answered last and moves to the next one only when that is safe:
// GETs after any ErrUnavailable; PUTs and DELETEs only when the broker certainly did not act
// (the connection could not be opened, it answered 503, or it redirected), so that a lost answer
// never leads to a second decommission. Each attempt is bounded by Config.Timeout and by the
// caller's context. The client never waits and tries again: the caller's workqueue retries with
// backoff.
//
// Redpanda answers a call whose controller leadership moved with a 307 to the leader
// (server.cc redirect_to_leader, which counts redirects in the Location's redirect= query
// parameter and asks for a Retry-After on every second one). Its Location keeps the scheme and
// the port of the request and names the leader by the address it advertises: its internal RPC
// address (in Kubernetes another pod's DNS name, often fully qualified with a trailing dot), or
// its advertised Kafka address when the request's host was one of the broker's own. The client
// follows one redirect per attempt, itself (net/http's following is off): it sends the same
// method, with the same credentials, to the Location as given, but only when
//   - its scheme, host and port are those of one of Config.URLs, or
//   - it keeps the scheme and port of the broker that redirected, and its host is the internal
//     RPC address of a member of this cluster as GET /v1/brokers reports it (a loopback address,
//     Redpanda's default, never counts: it names the client's own host).
//
// Host names compare without case and without a trailing dot. The member names are those of the
// last broker list the client read; a name it does not know yet costs one GET /v1/brokers of the
// broker that redirected. A Location with user info, a redirect anywhere else, or a second one
// ends the attempt with ErrUnavailable and a message saying why; credentials go to no other host.
//
// # Credentials
//
// The client logs nothing. No error it returns holds the password or the Authorization header's
// value: a broker's error message, a Location and a transport error that quote them (as a proxy
// on the way might, or net/http when it cannot parse a Location) have them replaced by
// "<redacted>".
//
// DefaultTimeout is 10 s: Redpanda itself waits up to node_management_operation_timeout_ms
// (5 s by default, src/v/config/configuration.cc) for a decommission, recommission or
// maintenance change forwarded to the controller leader (src/v/cluster/members_frontend.cc), and
// up to 5 s for a decommission status or drain status (server.cc); the client must outwait it.
//
// Response bodies are read up to Config.MaxBodyBytes; past that the answer is ErrBadResponse.
// Decoding is strict where a mistake could mislead the operator: node_id and membership_status
// are required, node IDs must be unique, in range and integers; health_overview needs
// is_healthy. Unknown fields are ignored and unknown membership states are kept as given.
//
// # Checked against Redpanda's sources
//
// Paths, field names and error statuses were checked against redpanda-data/redpanda:
// src/v/redpanda/admin/api-doc/broker.json (models "broker", "maintenance_status" and
// "decommission_status"), cluster.json ("cluster_health_overview"), the admin server's
// handlers in server.cc (get_broker_handler, decommission, recommission, decommission progress,
// start/stop_broker_maintenance_handler, node_config, throw_on_error: 404 "broker with id N not
// found" for node_does_not_exists, 400 "can not update broker N state, invalid state transition
// requested" for invalid_node_operation, 503 "Service unavailable"/"Not ready", 504 "Timeout"),
// members_table.cc (decommission needs an active broker, recommission a draining one, one broker
// in maintenance at a time), controller_api (decommission progress of a removed broker is
// "finished"; 404 "Node N does not exists", 400 "Node N is not decommissioning"),
// health_monitor_backend.cc (unhealthy reasons), node_config.cc and src/v/json/json.cc
// (node_config fields), the membership_state formatter ("active", "draining", "removed") and
// seastar's JSON error body {"message": ..., "code": ...}.
//
// Not confirmed:
//   - which Redpanda release first fills internal_rpc_address and internal_rpc_port in
//     GET /v1/brokers, so they are optional here;
//   - whether is_alive is present in every supported release (optional here, false if absent;
//     GET /v1/brokers/{id} never sends it);
//   - the exact body of a successful PUT (seastar's json_void); the client ignores it.
//
// # Brokers and pods
//
// A broker run by a StatefulSet advertises its pod's stable host name as internal RPC address;
// OrdinalFromAddress maps it back to the pod ordinal, and StableHostName builds it.
// AddressTemplate renders admin API base URLs from a text/template over Namespace, Name,
// Ordinal, Port and ClusterDomain (the Kubernetes cluster's DNS domain), with one function besides text/template's own: add sums integers
// ({{add .Port .Ordinal}}). A rendered URL must be http(s)://host[:port] and nothing more (a
// trailing "/" is dropped; a path, query, fragment or user is refused), as a broker serves its
// admin API at the root of its own host:port and Redpanda's own Go client, rpadmin
// (redpanda-data/common-go), takes nothing else. DefaultAddressTemplate serves a cluster; in
// tests, admintest.Server.BrokerAddressTemplate reaches each simulated broker on its own port.
//
// A broker advertises its pod's stable host name only when started with --advertise-rpc-addr set
// to it (Redpanda's default is 127.0.0.1), and internal_rpc_address is not in every release's
// GET /v1/brokers: NodeConfig, asked of one broker's URL, is the reliable way to learn which node
// ID runs there.
package admin
