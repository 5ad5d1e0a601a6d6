// Package brokers is the brokers' view of the BrokerCluster controller: everything it learns
// from, and asks of, Redpanda's admin API. Admin (admin.go) keeps an admin client per cluster
// (identity.go's adminClients, with the security its Secrets give: security.go) and each
// cluster's drain progress (drain.go) across reconciles.
//
//   - Observe (observe.go) fills in the brokers' part of a step.Observation: who runs each pod
//     (identity.go: node_config, then the pod's annotation, then the member list's address),
//     the membership of the broker being decommissioned and of the next to go or to restart,
//     maintenance mode and health_overview (maintenance.go), ghost brokers (ghosts.go), and the
//     scale-down pre-flight's placement while a decommission may be next (preflight.go).
//   - CheckFacts (facts.go) reads a step's facts afresh right before its irreversible call or
//     write: the restart's pod from the apiserver, the brokers list (from the controller leader,
//     authority.go; and with it the brokers' versions and, for a rollback, GET /v1/features:
//     upgrade.go; for a decommission, the scale-down pre-flight's partitions, racks and disks:
//     preflight.go), health_overview last.
//   - Decommission, Recommission and SetMaintenance (calls.go, maintenance.go) are the calls of
//     the step table; Problem and WaitsOnAdmin (calls.go) classify what went wrong.
//   - CheckClusterConfig (clusterconfig.go, clusterconfig_report.go) writes spec.clusterConfig
//     as `rpk cluster config import` does and reports it.
//   - Every call is counted and bound by the reconcile's deadline (decorator.go, metrics.go).
//   - A cluster with pools is seen through a focus view of one pool (pools.go: FocusView), its
//     admin client reaching every pool's brokers, the focus pool's first; the other pools'
//     pods count in the ghost check, the identity of a pod no member is left for and the
//     pre-flight, and name the seed candidates and the brokers not joined yet.
//
// It imports internal/step and internal/objects (for the admin port), never the other way.
package brokers
