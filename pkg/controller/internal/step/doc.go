// Package step is the pure decision of the BrokerCluster controller: observations in, one step
// out. It holds the transition tables (scaling.go, rollout.go; Decide in decide.go), the step
// table (table.go: what each step writes, calls and relies on), the facts and how the brokers
// list judges them (members.go), the health gate (health.go), Redpanda's upgrade path and its
// versions (upgrade.go, version.go), the scale-down pre-flight (preflight.go, disk.go), the
// reasons in words
// (reasons.go), the status a step writes (status.go), the preview of what the pending changes
// will restart or remove (preview.go), a paused cluster's status (paused.go), whether a step is
// news for an event (story.go), the ghost broker row's choice (ghosts.go), the growth of the
// brokers' volumes (volumes.go), the order of a move between pools and the pools' status
// (pools.go, poolstatus.go), the choice of seeds (seeds.go) and every step kind (kinds.go).
//
// It makes no call and imports no client: no k8s.io/client-go package and nothing of
// pkg/admin (a test checks it). The controller's runner (pkg/controller/runner.go) reads a row
// and makes its calls and writes; internal/brokers reads the facts afresh right before an
// irreversible step. No switch over Kind lives outside this package: everything a step does is
// in its row or in a function here.
package step
