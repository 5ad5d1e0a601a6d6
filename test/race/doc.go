// Package race is the race experiment: it reproduces the seed's stale-read bug against a real
// kube-apiserver and measures what each read strategy and guard costs.
//
// The experiment itself is TestRaceExperiment (build tag e2e). It starts the local control plane
// from test/framework once, then for each row (a read strategy and a set of guards) runs the
// operator in-process over its own clients, in a fresh namespace, against many BrokerClusters that
// scale down one broker at a time with scale-ups mixed in, while the operator's watch streams are
// delayed at random. The apiserver stays real; only delivery to the operator is late. A row
// named with +R also changes the image on every other step, so that rollouts (maintenance mode,
// pod restarts) mix with the scale-downs; a broker put into maintenance while another one is, or
// a maintenance call the brokers refuse, counts as a wrong decision.
//
// The pieces that do not need a control plane live in plain files and have unit tests:
//   - Recorder: a transport wrapper for the operator's rest.Config that counts API requests by
//     verb, delays watch responses (harness.Lag), and remembers the resourceVersion of the
//     operator's own last successful write to each object, so a read older than it is counted
//     as stale (recorder.go); given a history.Recorder (RecorderOptions.History), it also
//     records every write, with its precondition, answer and audit ID, in the operator's
//     history, whose reads and irreversible calls the controller reports through
//     controller.Config.Tracer (historywrite.go). Each row's history is checked with
//     history.Check and its figures go beside the stale-read counter in the table;
//   - the maintenance judge: two brokers in maintenance at once (decisions.go);
//   - WriteTable (with Row, Result and Header): the markdown report (table.go).
//
// What the experiment shares with the soak test (test/soak) lives in test/harness: the watch lag,
// the schedules, the request classifier, the untargeted-decommission judge, and the harness's own
// view of whether a cluster has converged.
//
// See docs/race-experiment.md for the command lines and the committed results.
package race
