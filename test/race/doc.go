// Package race is the race experiment: it reproduces the seed's stale-read bug against a real
// kube-apiserver and measures what each read strategy and guard costs.
//
// The experiment itself is TestRaceExperiment (build tag e2e). It starts the local control plane
// from test/framework once, then for each workload and each row (a read strategy and a set of
// guards) runs the operator in-process over its own clients, in a fresh namespace, against many
// BrokerClusters, while the operator's watch streams are delayed at random. The apiserver stays
// real; only delivery to the operator is late. Two workloads (plan.go), picked by -workload:
//   - scale: each cluster scales down one broker at a time with scale-ups mixed in. A row named
//     with +R also changes the image on every other step, so that rollouts (maintenance mode,
//     pod restarts) mix with the scale-downs; a broker put into maintenance while another one
//     is, or a maintenance call the brokers refuse, counts as a wrong decision;
//   - pools: each cluster's three brokers move from the default pool to pool blue and back, one
//     move per step, each move three decommissions, as the seed's clusters moved to another
//     node pool. A rollout does not run during a move between pools (docs/pools.md), so this
//     workload runs no +R row.
//
// Every cluster of a row is brought up first; the steps start together once all are up, and
// the row's requests, admin calls and CPU are also counted from then on, so that a step's cost
// leaves bring-up out.
//
// The pieces that do not need a control plane live in plain files and have unit tests:
//   - Recorder: a transport wrapper for the operator's rest.Config that counts API requests by
//     verb, delays watch responses (harness.Lag) and records every write, with its
//     precondition, answer and audit ID (and, for a delete answered with the object gone, the
//     delete), in the operator's history (RecorderOptions.History), whose reads and
//     irreversible calls the controller reports through controller.Config.Tracer
//     (recorder.go, historywrite.go). Each row's history is checked with history.Check. Stale
//     reads, reads older than the operator's own finished write, are judged there and only
//     there (history.Report.StaleReads, by resource), and so are the history's own judgements
//     of the safety rules: no broker decommissioned twice, and at most one broker in
//     maintenance (not judged while pkg/controller traces no maintenance-off). The table
//     puts each rule's history and simulator counts side by side (harness.Rule); a row fails
//     when its history is not evidence enough (history.Report.Err), when the two judges
//     disagree, or when a judge judged nothing where the row made such calls;
//   - the maintenance judge: two brokers in maintenance at once (decisions.go);
//   - WriteTable (with Row, Result and Header): the markdown report, per step for the pool-move
//     workload (table.go);
//   - WriteRateTable (with RateHeader and Wilson): with -runs above 1, every row is run once per
//     seed and the runs are added up per row: the clusters that had a broker decommissioned
//     twice, with a 95 % Wilson interval on their rate, the runs that had one, and stale reads
//     per run (rate.go);
//   - the workloads' plans: each cluster's patches and the marks the judges read (plan.go).
//
// What the experiment shares with the soak test (test/soak) lives in test/harness: the watch lag,
// the schedules, the request classifier, the untargeted-decommission judge, and the harness's own
// view of whether a cluster has converged.
//
// See docs/race-experiment.md for the command lines and the committed results.
package race
