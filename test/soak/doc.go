// Package soak is the soak test: many BrokerClusters scaling, with rolling restarts mixed in, on
// one real control plane for a long time, while faults are injected on a schedule drawn from a
// seed (one of them takes a broker down while another is being restarted), with the operator running as a
// separate process built from cmd/broker-operator, as its ServiceAccount, two replicas with leader
// election.
//
// The test itself is TestSoak (build tag e2e); its quick mode runs in make test, its full mode by
// hand (-full), and TestSoakScale measures the operator's cost against the number of clusters
// (-scale). See docs/soak.md for the command lines and the committed results.
//
// Each operator process reaches the apiserver through its own Proxy, which counts its requests,
// delays its watch streams while the lag fault is on, cuts its watches on demand, and counts the
// relists and 410 Gone answers it sees. Each process's history (ProcessHistory) is built from
// outside it, for the checker of test/history: its proxy records every write with its
// precondition and answer, the deletes it made, the deletions its watch streams deliver and its
// leadership (its first Lease write naming a holder); its log gives the reads and irreversible
// admin calls pkg/controller's LogTracer traces (ParseTrace), and a traced line that does not
// parse is counted (ProcessHistory.Unreadable), never dropped. The checker runs once every
// process has exited, with the apiserver's audit log for the order of writes across failovers.
// It is the one judge of stale reads (a read older than a write the same process had already
// finished; the report's stale-read count is history.Report.StaleReads), and any violation, or
// a history that is no evidence (history.Report.Err: no read judged, a trace line unread, ...),
// fails the run.
//
// The safety rules are judged twice, from the histories and from the broker simulator's call
// log, and the report puts the two side by side (harness.Rule): no broker decommissioned twice,
// at most one broker in maintenance (the histories cannot judge it while pkg/controller traces
// no maintenance-off), and no decision by a deposed leader (which only the histories can
// judge). The run fails when the two judges disagree, or when one judged nothing though the run
// made such calls. Everything else the test judges comes from outside the operator: the broker
// simulator's call log (untargeted and early decommissions, and restarts begun while another
// broker was unavailable, with the harness's record of the brokers it took down) and the
// apiserver's objects (convergence, leader changes).
//
// The pieces that do not need a control plane live in plain files and have unit tests: the proxy
// (proxy.go), the trace parser (tracelog.go), the history (prochistory.go, watchdeletes.go),
// the fault plan (plan.go), the
// convergence times after each fault (invariants.go), the brokers unavailable at once
// (unavailable.go) and the report with its side-by-side safety rules (report.go). What the soak
// shares with the race experiment (test/race) lives in test/harness: the watch lag, the
// schedules, the request classifier, the untargeted-decommission judge, and the harness's own
// view of whether a cluster has converged.
package soak
