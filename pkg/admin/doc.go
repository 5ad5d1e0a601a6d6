// Package admin is a client for the brokers' admin API: the few Redpanda Admin API v1 calls an
// operator needs before it removes a broker. It depends on no Kubernetes package, so any program
// can use it; package admintest simulates broker clusters for tests and local runs.
//
// # Calls
//
//	GET /v1/brokers                     Client.Brokers
//	PUT /v1/brokers/{id}/decommission   Client.Decommission
//	PUT /v1/brokers/{id}/recommission   Client.Recommission
//	GET /v1/brokers/{id}/decommission   Client.DecommissionStatus
//
// # Errors
//
// Every error is an *Error; errors.Is tells the kind:
//
//	ErrBrokerNotFound          404: no such member (never was, or already removed)
//	ErrAlreadyDecommissioned   400 on decommission: the broker is draining already
//	ErrNotDecommissioning      400 on recommission and decommission status: it is not draining
//	ErrUnauthorized            401, 403
//	ErrUnavailable             no answer: refused, reset, timed out; 5xx, 429, 408
//	ErrBadResponse             malformed, oversized or incomplete body; an undocumented status
//
// When the caller's context ends, the error matches none of them and wraps ctx.Err().
//
// # Brokers, timeouts, retries
//
// Config.URLs name every broker's admin API; any broker answers for the whole cluster. A call
// starts with the broker that answered last and moves to the next one only when that is safe:
// GETs after any ErrUnavailable; PUTs only when the broker certainly did not act (the connection
// could not be opened, or it answered 503), so that a lost answer never leads to a second
// decommission. Each attempt is bounded by Config.Timeout and by the caller's context. The client
// never waits and tries again: the caller's workqueue retries with backoff.
//
// Response bodies are read up to Config.MaxBodyBytes; past that the answer is ErrBadResponse.
// Decoding is strict where a mistake could mislead the operator: node_id and membership_status
// are required, node IDs must be unique, in range and integers. Unknown fields are ignored and
// unknown membership states are kept as given.
//
// # Checked against Redpanda's sources
//
// Paths, field names and error statuses were checked against redpanda-data/redpanda:
// src/v/redpanda/admin/api-doc/broker.json (models "broker" and "decommission_status"), the
// admin server's decommission, recommission and decommission-progress handlers and its
// throw_on_error (404 "broker with id N not found" for node_does_not_exists, 400 "can not update
// broker N state, invalid state transition requested" for invalid_node_operation, 503 "Not
// ready", 504 on timeout), members_table (decommission needs an active broker, recommission a
// draining one), controller_api (decommission progress of a removed broker is "finished"; 404
// "Node N does not exists", 400 "Node N is not decommissioning"), the membership_state formatter
// ("active", "draining", "removed") and seastar's JSON error body {"message": ..., "code": ...}.
//
// Not confirmed:
//   - which Redpanda release first fills internal_rpc_address and internal_rpc_port in
//     GET /v1/brokers (broker.json declares both; an older handler read did not set them), so
//     they are optional here;
//   - whether is_alive is present in every supported release (optional here, false if absent);
//   - the exact body of a successful PUT (seastar's json_void); the client ignores it;
//   - whether any admin handler answers a decommission with a redirect to the controller
//     leader (decommission is forwarded internally); redirects are followed by net/http, which
//     drops the Authorization header when the host changes;
//   - the 404 body seastar writes for an unknown route, so a 404 on GET /v1/brokers is reported
//     as ErrBadResponse rather than guessed at.
//
// # Brokers and pods
//
// A broker run by a StatefulSet advertises its pod's stable host name as internal RPC address;
// OrdinalFromAddress maps it back to the pod ordinal, and StableHostName builds it.
// AddressTemplate renders admin API base URLs from a text/template over Namespace, Name,
// Ordinal and Port (DefaultAddressTemplate in a cluster, admintest.Server.AddressTemplate in
// tests).
package admin
