// Package harness holds what the race experiment (test/race) and the soak test (test/soak) both
// need to drive BrokerClusters on a real control plane and judge the operator from outside it,
// so that a fix lands once.
//
//   - Lag, ParseLag, LagSource and NewLateBody: the delay distribution of a watch stream, drawn
//     from a seed, and a watch body that delivers each chunk late, in order (lag.go).
//   - Schedule, NewSchedule and Schedules: each cluster's replica targets, drawn from the seed:
//     scale-downs by one broker with scale-ups mixed in (schedule.go).
//   - Classify, Request and Verbs: what a REST request addresses, as the apiserver's request
//     info resolver names it (requests.go); RoundTripperFunc, for a transport wrapper
//     (transport.go); Total sums counts by verb.
//   - WriteEvent, Answer and DeletedUID: a write as an event of the operator's history
//     (test/history), with the precondition it sent and its answer, and whether a delete's
//     answer says the object is gone (historywrite.go). The history checker is the one judge
//     of stale reads: what a run reports as stale reads is history.Report.StaleReads.
//   - Rule, Tally, HistoryTally, DecommissionTally and MaintenanceCalls: a safety rule judged
//     twice, from the histories and from the broker simulator's call log, side by side; Problems
//     names judges that disagree or judged nothing (safety.go).
//   - Mark, Pod, Ordinals, KnownBrokers and Untargeted: the judge of untargeted decommissions
//     over the broker simulator's call log, pool by pool; Quantile, nearest rank (judge.go).
//   - Clusters: the harness's own informer on a namespace's BrokerClusters, which says whether a
//     cluster has converged (brokersim.PodSync.Converged) and waits for it (clusters.go).
//   - NewBrokerCluster: a BrokerCluster on the control plane's fake nodes, wired to its
//     simulated brokers (objects.go); DrawSeed: the seed of a run.
package harness
