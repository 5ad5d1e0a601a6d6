package soak

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// Markers around the report in a markdown file written with -out.
const (
	reportBegin = "<!-- soak-table:begin -->"
	reportEnd   = "<!-- soak-table:end -->"
)

// FaultStats is what one kind of fault did over a run.
type FaultStats struct {
	Kind string
	// What says what the fault does.
	What string
	// Injected counts the injections; Notes are what each reported (the first few are shown).
	Injected int
	Notes    []string
	// Relists and Gone are the relists and 410 Gone answers the operator saw from the injection
	// until the next fault.
	Relists, Gone int
	// Converge are the times, after each injection, until the steps then in progress converged.
	Converge []time.Duration
}

// Result is one run of the soak.
type Result struct {
	Mode    string
	Command string
	Seed    uint64
	Started time.Time
	Took    time.Duration

	Clusters, Steps, Decommissions, ScaleUps int
	// Rollouts counts the rolling restarts that converged; Restarts the brokers put into
	// maintenance mode for a restart (the simulator's calls); InjectedDown the brokers the
	// broker-down-during-restart fault took down.
	Rollouts, Restarts, InjectedDown int
	// Moves counts the pool moves that converged (every broker of the cluster to pool blue, or
	// back), each decommissioning every broker of the pool it left.
	Moves int
	// CannotStart counts the pods of bad images that could not start (bad-image-rollout);
	// SlowRecoveries the restarted brokers that reclaimed their load slowly (slow-recovery).
	CannotStart, SlowRecoveries int
	// MostUnavailable is the most brokers of one cluster the operator had restarting at one
	// instant, each restart lasting until its broker was back and had recovered (OwnOutages);
	// RestartOverlaps counts the restarts it began while another broker of the cluster was
	// unavailable (Unavailability).
	MostUnavailable, RestartOverlaps int
	// PodDownOverlaps counts the simulator's own overlaps (a broker into maintenance or its pod
	// down while another broker was) that the operator caused (PodDownOverlaps).
	PodDownOverlaps int
	// MaintenanceCalls counts the maintenance-on requests that reached the brokers, and
	// MaintenanceOverlaps the restarts the operator began while it had another broker of the
	// cluster in maintenance (Unavailability without the injected outages): the simulator's
	// judgement of the rule the history checker judges as one-unavailable.
	MaintenanceCalls, MaintenanceOverlaps      int
	DoubleDecommissions, Untargeted, LeftEarly int
	Stuck                                      int
	Requests                                   map[string]int
	Relists, Gone, WatchesCut                  int
	LeaderChanges, OperatorStarts              int
	// ComponentRestarts counts the control plane components that exited on their own and were
	// started again (framework.ControlPlane.Restarts), by name.
	ComponentRestarts         map[string]int
	StepP50, StepP99, StepMax time.Duration
	Faults                    []FaultStats
	// History is what the history checker (test/history) found in the operator processes'
	// histories, stale reads among its violations; nil when they were not checked.
	History *history.Report
	// Safety is each safety rule judged from the histories and from the simulator, side by
	// side (judgeSafety).
	Safety []harness.Rule
}

// Violations sums what must never happen.
func (r Result) Violations() int {
	n := r.DoubleDecommissions + r.Untargeted + r.LeftEarly + r.Stuck + r.RestartOverlaps + r.PodDownOverlaps
	if r.History != nil {
		n += len(r.History.Violations)
	}
	return n
}

// judgeSafety sets Safety from the history report and the simulator's calls and double
// decommissions: no broker decommissioned twice, at most one broker in maintenance, no
// decision by a deposed leader (which the simulator cannot judge: it knows no leader).
func (r *Result) judgeSafety(calls []admintest.Call, doubles []string) {
	r.Safety = []harness.Rule{
		{Name: "double decommissions", History: harness.HistoryTally(r.History, history.OneDecommission),
			Simulator: harness.DecommissionTally(calls, doubles)},
		{Name: "brokers in maintenance at once", History: harness.HistoryTally(r.History, history.OneUnavailable),
			Simulator: harness.Tally{Judged: r.MaintenanceCalls, Violations: r.MaintenanceOverlaps}},
		{Name: "decisions by a deposed leader", History: harness.HistoryTally(r.History, history.LeaderDecides),
			Simulator: harness.Tally{NotJudged: "the simulator knows no leader"}},
	}
}

// SafetyProblems names the judges of Safety that disagree, and those that judged nothing
// though the run made such calls: decommissions for the first and third rule, rolling
// restarts for the second.
func (r Result) SafetyProblems() []string {
	var out []string
	for i, rule := range r.Safety {
		out = append(out, rule.Problems(i != 1 && r.Decommissions > 0 || i == 1 && r.Rollouts > 0)...)
	}
	return out
}

// TotalRequests sums Requests.
func (r Result) TotalRequests() int {
	return harness.Total(r.Requests)
}

// WriteReport writes a run as markdown: the command and seed, the counts, and one row per fault
// kind.
func WriteReport(w io.Writer, r Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s mode, seed %d, started %s, took %s.\n\n", r.Mode, r.Seed, r.Started.UTC().Format(time.RFC3339), r.Took.Round(time.Second))
	fmt.Fprintf(&b, "```sh\n%s\n```\n\n", r.Command)
	b.WriteString("| what | count |\n| --- | --- |\n")
	row := func(what string, v any) { fmt.Fprintf(&b, "| %s | %v |\n", what, v) }
	row("BrokerClusters", r.Clusters)
	row("scaling steps converged", r.Steps)
	row("decommissions (a scale-down by one broker, or one broker a pool move took)", r.Decommissions)
	row("scale-ups", r.ScaleUps)
	row("rolling restarts converged (image and pod annotation changes)", r.Rollouts)
	row("pool moves converged (every broker to pool blue, or back; counted among the decommissions)", r.Moves)
	row("brokers restarted through maintenance mode", r.Restarts)
	row("brokers taken down during a restart (broker-down-during-restart)", r.InjectedDown)
	row("pods that could not start: ImagePullBackOff, CrashLoopBackOff (bad-image-rollout)", r.CannotStart)
	row("restarted brokers that reclaimed their load slowly (slow-recovery)", r.SlowRecoveries)
	row("**most brokers of one cluster restarting at once** (maintenance, a pod that cannot start, recovering)", fmt.Sprintf("**%d**", r.MostUnavailable))
	row("**restarts begun while another broker was unavailable**", fmt.Sprintf("**%d**", r.RestartOverlaps))
	row("**brokers into maintenance or down while another was, by the operator** (simulator)", fmt.Sprintf("**%d**", r.PodDownOverlaps))
	row("step time p50 / p99 / max", fmt.Sprintf("%s / %s / %s", r.StepP50.Round(time.Millisecond), r.StepP99.Round(time.Millisecond), r.StepMax.Round(time.Millisecond)))
	historyRows(row, r.History)
	for _, rule := range r.Safety {
		row(fmt.Sprintf("**%s**: history / simulator (violations of calls judged)", rule.Name), fmt.Sprintf("%s / %s", rule.History, rule.Simulator))
	}
	row("**double decommissions**", fmt.Sprintf("**%d**", r.DoubleDecommissions))
	row("**untargeted decommissions**", fmt.Sprintf("**%d**", r.Untargeted))
	row("**brokers that left early**", fmt.Sprintf("**%d**", r.LeftEarly))
	row("**stuck clusters**", fmt.Sprintf("**%d**", r.Stuck))
	var verbs []string
	for _, v := range harness.Verbs {
		if n := r.Requests[v]; n > 0 {
			verbs = append(verbs, fmt.Sprintf("%s %d", v, n))
		}
	}
	row("operator API requests", fmt.Sprintf("%d (%s)", r.TotalRequests(), strings.Join(verbs, ", ")))
	row("relists seen (listings beyond each informer's first)", r.Relists)
	row("410 Gone seen by the operator", r.Gone)
	row("watch streams cut", r.WatchesCut)
	row("leader changes (Lease holder)", r.LeaderChanges)
	row("operator processes started", r.OperatorStarts)
	row("control plane components that exited and were started again", componentRestarts(r.ComponentRestarts))
	b.WriteString("\n| fault | injected | relists / 410s after | converge after p50 / p99 / max | what it does | what it did (first) |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, f := range r.Faults {
		note := ""
		if len(f.Notes) > 0 {
			note = f.Notes[0]
		}
		fmt.Fprintf(&b, "| %s | %d | %d / %d | %s / %s / %s | %s | %s |\n", f.Kind, f.Injected, f.Relists, f.Gone,
			harness.Quantile(f.Converge, 0.5).Round(time.Millisecond), harness.Quantile(f.Converge, 0.99).Round(time.Millisecond), harness.Quantile(f.Converge, 1).Round(time.Millisecond),
			strings.ReplaceAll(f.What, "|", "/"), strings.ReplaceAll(note, "|", "/"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// historyRows writes the history checker's figures: operations checked, violations, and how
// many reads (admin calls) each guarantee judged.
func historyRows(row func(string, any), h *history.Report) {
	if h == nil {
		row("**stale reads** (of reads judged against the process's own writes)", "not checked")
		row("**history checker: violations** (operations checked)", "not checked")
		return
	}
	stale, reads := harness.Total(h.StaleReads()), harness.Total(h.ReadsOf())
	row("**stale reads** (of reads judged against the process's own writes)", fmt.Sprintf("**%d** (of %d)", stale, reads))
	row("**history checker: violations** (operations checked)", fmt.Sprintf("**%d** (of %d operations of %d processes: %d reads, %d writes, %d deletes, %d admin calls)",
		len(h.Violations), h.Events, h.Processes, h.Reads, h.Writes, h.Deletes, h.AdminCalls))
	var judged []string
	for _, g := range history.Guarantees {
		if why, ok := h.NotJudged[g]; ok {
			judged = append(judged, fmt.Sprintf("%s not judged (%s)", g, why))
			continue
		}
		judged = append(judged, fmt.Sprintf("%s %d (violated %d)", g, h.Judged[g], h.Count(g)))
	}
	row("history checker: judged per guarantee", strings.Join(judged, ", "))
	row("history checker: not judged (unparseable resourceVersions, unresolved writes, unlinked leaderships, unattributed reads, unreadable trace lines)",
		fmt.Sprintf("%d, %d, %d, %d, %d", h.Unparseable, h.Unresolved, h.Unlinked, h.Unattributed, h.Unreadable))
	evidence := "enough"
	if err := h.Err(); err != nil {
		evidence = "**" + err.Error() + "**"
	}
	row("history checker: evidence", evidence)
}

// ScaleRow is what one operator process, with one read strategy, cost at one number of clusters.
type ScaleRow struct {
	Clusters int
	Strategy string
	// BringUp is how long the size's new clusters took to be ready (on the size's first row).
	BringUp time.Duration
	// RSS and Heap (the Go heap the last garbage collection kept: go_gc_heap_live_bytes), in
	// bytes, at the end of the quiet window.
	RSS, Heap float64
	// QuietPerMin is the requests per minute at steady state beyond watches and leader election.
	QuietPerMin float64
	// The busy phase: one scale-down of every cluster. Its requests (beyond watches and leader
	// election), CPU seconds, duration, decommissions accepted by the brokers, reconcile
	// durations (seconds, bucket upper bounds) and the deepest the workqueue got.
	BusyRequests  int
	BusyCPU       float64
	Busy          time.Duration
	Decommissions int
	P50, P99      float64
	MaxDepth      float64
	// BusyWatchBytes are the bytes of watch streams the operator received in the busy phase,
	// by resource: what it decoded beyond its requests' answers.
	BusyWatchBytes map[string]int64
	// Reactions are the times from one cluster's spec change to the operator's first admin call
	// for it, every other cluster idle, one change at a time.
	Reactions []time.Duration
	// ReactionPatches are those changes' patch round trips (sent to answered), each within its
	// reaction: the apiserver's share of it.
	ReactionPatches []time.Duration
}

// WriteScaleTable writes the growth table of the first strategy measured, then every strategy's
// costs as ratios to the first's at the same size.
func WriteScaleTable(w io.Writer, rows []ScaleRow) {
	if len(rows) == 0 {
		return
	}
	first := rows[0].Strategy
	mib := func(b float64) string { return fmt.Sprintf("%.1f", b/(1<<20)) }
	ms := func(s float64) string { return fmt.Sprintf("%.0f", s*1000) }
	fmt.Fprintf(w, "Growth (%s):\n\n", first)
	fmt.Fprintln(w, "| clusters | bring-up | RSS MiB | live heap MiB | live heap KiB per added cluster | quiet requests/min | busy: requests | requests per decommission | CPU s | CPU ms per decommission | reconcile p50 / p99 ms | max queue depth | took |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	var prev *ScaleRow
	for _, r := range rows {
		if r.Strategy != first {
			continue
		}
		// Memory per cluster is the slope between sizes: what the clusters added since the size
		// before cost; the first size's share includes the process's fixed cost.
		slope := r.Heap / 1024 / float64(r.Clusters)
		if prev != nil {
			slope = (r.Heap - prev.Heap) / 1024 / float64(r.Clusters-prev.Clusters)
		}
		prev = &r
		perDecom := func(v float64) string {
			if r.Decommissions == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f", v/float64(r.Decommissions))
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %.1f | %.1f | %d | %s | %.1f | %s | %s / %s | %.0f | %s |\n",
			r.Clusters, r.BringUp.Round(time.Second), mib(r.RSS), mib(r.Heap), slope, r.QuietPerMin,
			r.BusyRequests, perDecom(float64(r.BusyRequests)), r.BusyCPU, perDecom(r.BusyCPU*1000), ms(r.P50), ms(r.P99), r.MaxDepth, r.Busy.Round(time.Second))
	}
	fmt.Fprintf(w, "\nRead strategies, as ratios to %s at the same size:\n\n", first)
	fmt.Fprintln(w, "| clusters | strategy | quiet requests/min | busy requests | busy CPU | live heap | RSS |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	base := map[int]ScaleRow{}
	for _, r := range rows {
		if r.Strategy == first {
			base[r.Clusters] = r
		}
	}
	ratio := func(a, b float64) string {
		if b == 0 {
			if a == 0 {
				return "1.00 (0 / 0)"
			}
			return fmt.Sprintf("%.0f / 0", a)
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	for _, r := range rows {
		b, ok := base[r.Clusters]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s |\n", r.Clusters, r.Strategy, ratio(r.QuietPerMin, b.QuietPerMin),
			ratio(float64(r.BusyRequests), float64(b.BusyRequests)), ratio(r.BusyCPU, b.BusyCPU), ratio(r.Heap, b.Heap), ratio(r.RSS, b.RSS))
	}
	writeWatchTable(w, rows)
	writeReactionTable(w, rows)
}

// writeWatchTable writes each row's watch stream bytes per decommission in the busy phase, in
// all and by resource, largest first, when any row counted them.
func writeWatchTable(w io.Writer, rows []ScaleRow) {
	if !slices.ContainsFunc(rows, func(r ScaleRow) bool { return len(r.BusyWatchBytes) > 0 && r.Decommissions > 0 }) {
		return
	}
	fmt.Fprintln(w, "\nWatch streams the operator received in the busy phase, KiB per decommission:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| clusters | strategy | in all | by resource |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	for _, r := range rows {
		if len(r.BusyWatchBytes) == 0 || r.Decommissions == 0 {
			continue
		}
		kib := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/1024/float64(r.Decommissions)) }
		resources := slices.SortedFunc(maps.Keys(r.BusyWatchBytes), func(a, b string) int {
			return cmp.Or(cmp.Compare(r.BusyWatchBytes[b], r.BusyWatchBytes[a]), cmp.Compare(a, b))
		})
		var all int64
		parts := make([]string, 0, len(resources))
		for _, res := range resources {
			all += r.BusyWatchBytes[res]
			parts = append(parts, res+" "+kib(r.BusyWatchBytes[res]))
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s |\n", r.Clusters, r.Strategy, kib(all), strings.Join(parts, ", "))
	}
}

// writeReactionTable writes each row's reaction times (spec change to first admin call), when
// any row has them.
func writeReactionTable(w io.Writer, rows []ScaleRow) {
	if !slices.ContainsFunc(rows, func(r ScaleRow) bool { return len(r.Reactions) > 0 }) {
		return
	}
	fmt.Fprintln(w, "\nReaction time, from one cluster's spec change (a live cluster property) to the operator's first admin call for it, the other clusters idle:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| clusters | strategy | changes | p50 ms | p99 ms | max ms | of which the patch's round trip: p50 / p99 ms |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }
	for _, r := range rows {
		if len(r.Reactions) == 0 {
			continue
		}
		sorted := slices.Sorted(slices.Values(r.Reactions))
		patches := "-"
		if len(r.ReactionPatches) > 0 {
			p := slices.Sorted(slices.Values(r.ReactionPatches))
			patches = ms(nearestRank(p, 0.50)) + " / " + ms(nearestRank(p, 0.99))
		}
		fmt.Fprintf(w, "| %d | %s | %d | %s | %s | %s | %s |\n", r.Clusters, r.Strategy, len(sorted),
			ms(nearestRank(sorted, 0.50)), ms(nearestRank(sorted, 0.99)), ms(sorted[len(sorted)-1]), patches)
	}
}

// nearestRank is the q-quantile of sorted by the nearest-rank method: the smallest value with at
// least q of the values at or below it.
func nearestRank(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// componentRestarts lists restarts by component name, in name order, or "none".
func componentRestarts(restarts map[string]int) string {
	if len(restarts) == 0 {
		return "none"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(restarts)) {
		parts = append(parts, fmt.Sprintf("%s %d", name, restarts[name]))
	}
	return strings.Join(parts, ", ")
}
