package race

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"
)

// AllRows are every strategy with and without each guard; QuickRows and QuickPoolRows are the
// ones CI runs of the scale and the pool-move workload.
const (
	AllRows       = "cache,cache+D,cache+C,cache+C+D,uncached,uncached+D,writeback,writeback+D,writeback+C+D,cache+R,cache+C+D+R,writeback+R,writeback+C+D+R"
	QuickRows     = "cache,uncached,writeback,writeback+C+D,writeback+C+D+R"
	QuickPoolRows = "cache,writeback,writeback+C+D"
)

// Row names one configuration of the experiment: a read strategy, the guards on, and whether
// rollouts mix with the scaling.
type Row struct {
	// Strategy is a controller.ReadStrategy spelling: cache, uncached or writeback.
	Strategy string
	// AdminCheck is the seed's option D; Precondition is option C.
	AdminCheck, Precondition bool
	// Rollout: every other step also changes the image, so that a rollout (maintenance mode,
	// pod restarts) runs mixed with the scale-downs and scale-ups.
	Rollout bool
}

// Name is how the row is written in tables and in -rows: the strategy, then +C and +D for the
// guards on, then +R for rollouts.
func (r Row) Name() string {
	name := r.Strategy
	if r.Precondition {
		name += "+C"
	}
	if r.AdminCheck {
		name += "+D"
	}
	if r.Rollout {
		name += "+R"
	}
	return name
}

// ParseRows parses a comma-separated list of row names such as "cache,writeback+C+D".
func ParseRows(text string) ([]Row, error) {
	var rows []Row
	for _, name := range strings.Split(text, ",") {
		name = strings.TrimSpace(name)
		parts := strings.Split(name, "+")
		r := Row{Strategy: parts[0]}
		switch r.Strategy {
		case "cache", "uncached", "writeback":
		default:
			return nil, fmt.Errorf("row %q: strategy %q is not cache, uncached or writeback", name, r.Strategy)
		}
		for _, g := range parts[1:] {
			switch g {
			case "C":
				r.Precondition = true
			case "D":
				r.AdminCheck = true
			case "R":
				r.Rollout = true
			default:
				return nil, fmt.Errorf("row %q: %q is not C (precondition), D (admin check) or R (rollouts)", name, g)
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// Result is what one row measured.
type Result struct {
	Row Row
	// Clusters and Decommissions are what the row ran: clusters, and scale-down steps in all.
	Clusters, Decommissions int
	// Stats are the operator's requests and reads.
	Stats Stats
	// DoubleDecommissions: decommission calls for a broker that was not an active member.
	// Untargeted: decommission calls for a broker whose ordinal the cluster was not shrinking
	// past. LeftEarly: brokers whose pod left while they were still members. Maintenance: a
	// broker put into maintenance mode while another one was, or a maintenance call the brokers
	// refused (two restarts at once).
	DoubleDecommissions, Untargeted, LeftEarly, Maintenance int
	// ClustersWithDouble counts the clusters that had at least one double decommission: the
	// seed's failed run.
	ClustersWithDouble int
	// GuardFirings counts the guards' refusals (admin check and precondition).
	GuardFirings int
	// Stuck counts clusters that did not converge on a step within the step timeout.
	Stuck int
	// Converge is the wall time of the row's workload, bring-up and steps; StepP50, StepP95
	// and StepP99 are quantiles of one step's convergence time, over every step of every
	// cluster.
	Converge, StepP50, StepP95, StepP99 time.Duration
	// Steps is how many steps (spec changes after bring-up: scalings, or moves) the row asked
	// of its clusters. StepRequests, StepAdminCalls and StepCPU are what the steps took, counted
	// from the moment every cluster was up: the operator's API requests, the admin API requests
	// the brokers answered, and CPU.
	Steps, StepRequests, StepAdminCalls int
	StepCPU                             time.Duration
	// CPU is the test process's user and system time during the row: the operator, and the
	// harness's own informers and drivers.
	CPU time.Duration
	// PeakOverlay is the most entries the write-back overlays held at once (sampled).
	PeakOverlay int
	// HistoryChecked is how many events of the operator's history (test/history) the checker
	// read, and HistoryViolations how many violations it found in them; HistoryErr names why
	// the history was not evidence enough ("" when it was).
	HistoryChecked, HistoryViolations int
	HistoryErr                        string
	// Safety is each safety rule judged from the history and from the simulator, side by
	// side: double decommissions, then brokers in maintenance at once.
	Safety []harness.Rule
}

// expectJudged reports whether the row made calls that Safety[i] judges: decommissions for
// the first rule, rollouts for the second.
func (r Result) expectJudged(i int) bool {
	return i == 0 && r.Decommissions > 0 || i == 1 && r.Row.Rollout
}

// WrongDecisions sums the four kinds of wrong decision.
func (r Result) WrongDecisions() int {
	return r.DoubleDecommissions + r.Untargeted + r.LeftEarly + r.Maintenance
}

// Header describes a run, for the table's preamble.
type Header struct {
	Command string
	// Workload is WorkloadScale or WorkloadPools; Moves, for the pool-move workload, is how many
	// moves each cluster made (Decommissions is then moves times PoolBrokers).
	Workload string
	Moves    int
	Seed     uint64
	Lag      harness.Lag
	// PodStop is how long a deleted pod took to stop (-pod-stop); zero: at once.
	PodStop                 harness.Lag
	Clusters, Decommissions int
	Workers                 int
	DrainTime, DrainPoll    time.Duration
	Started                 time.Time
	Took                    time.Duration
}

// WriteTable writes the run as markdown: the command and seed, then one row per configuration.
// API requests are also given relative to the cache row and the uncached row of the same guards.
// A pool-move run is written per move (writePoolTable).
func WriteTable(w io.Writer, h Header, results []Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Command (seed %d, run %s, took %s):\n\n```sh\n%s\n```\n\n", h.Seed, h.Started.UTC().Format("2006-01-02 15:04 MST"), h.Took.Round(time.Second), h.Command)
	if h.Workload == WorkloadPools {
		writePoolTable(&b, h, results)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "%d clusters, %d scale-down steps each with scale-ups mixed in, watch lag %s per chunk%s, %d workers, drain %s, drain poll %s.\n\n",
		h.Clusters, h.Decommissions, h.Lag, podStopNote(h.PodStop), h.Workers, h.DrainTime, h.DrainPoll)
	b.WriteString("| row | stale reads (BC / STS) | history: checked / violations | wrong decisions (double / untargeted / left early / maintenance) | history / simulator: violations of judged | guard refusals | stuck | API requests | vs cache | vs uncached | get / list / watch / writes | time to converge | step p50 / p95 | CPU | peak overlay |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	relative := relativeTo(results, func(r Result) int { return r.Stats.TotalRequests() })
	for _, r := range results {
		req := r.Stats.Requests
		writes := req[harness.VerbCreate] + req[harness.VerbUpdate] + req[harness.VerbPatch] + req[harness.VerbDelete] + req[harness.VerbDeleteCollection]
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d of %d | %d | %s | %s | %d / %d / %d / %d | %s | %s / %s | %s | %d |\n",
			r.Row.Name(), r.staleReads(), r.judged(),
			r.GuardFirings, r.Stuck, r.Clusters,
			r.Stats.TotalRequests(), relative(r, "cache"), relative(r, "uncached"),
			req[harness.VerbGet], req[harness.VerbList], req[harness.VerbWatch], writes,
			r.Converge.Round(100*time.Millisecond), r.StepP50.Round(10*time.Millisecond), r.StepP95.Round(10*time.Millisecond),
			r.CPU.Round(100*time.Millisecond), r.PeakOverlay)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writePoolTable writes a pool-move run's rows: what the moves cost per move, counted from the
// moment every cluster was up, and one move's time (patch to converged) over every move of every
// cluster.
func writePoolTable(b *strings.Builder, h Header, results []Result) {
	fmt.Fprintf(b, "%d clusters of %d brokers, each moved %d times between the default pool and pool %s (%d decommissions per cluster), watch lag %s per chunk%s, %d workers, drain %s, drain poll %s.\n\n",
		h.Clusters, PoolBrokers, h.Moves, MovePool, h.Decommissions, h.Lag, podStopNote(h.PodStop), h.Workers, h.DrainTime, h.DrainPoll)
	b.WriteString("| row | stale reads (BC / STS) | history: checked / violations | wrong decisions (double / untargeted / left early / maintenance) | history / simulator: violations of judged | guard refusals | stuck | API requests per move | vs cache | vs uncached | admin requests per move | CPU per move | move p50 / p99 | peak overlay |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	relative := relativeTo(results, func(r Result) int { return r.StepRequests })
	for _, r := range results {
		moves := max(r.Steps, 1)
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d of %d | %.1f | %s | %s | %.1f | %s | %s / %s | %d |\n",
			r.Row.Name(), r.staleReads(), r.judged(),
			r.GuardFirings, r.Stuck, r.Clusters,
			float64(r.StepRequests)/float64(moves), relative(r, "cache"), relative(r, "uncached"),
			float64(r.StepAdminCalls)/float64(moves), (r.StepCPU / time.Duration(moves)).Round(time.Millisecond),
			r.StepP50.Round(10*time.Millisecond), r.StepP99.Round(10*time.Millisecond), r.PeakOverlay)
	}
}

// podStopNote says how long deleted pods took to stop, when they did not stop at once.
func podStopNote(stop harness.Lag) string {
	if stop.IsZero() {
		return ""
	}
	return ", deleted pods stopping in " + stop.String()
}

// staleReads, history's counts, wrong decisions and the safety rules: the table's columns 2 to
// 5, which every workload shares.
func (r Result) staleReads() string {
	return fmt.Sprintf("%d (%d / %d)", r.Stats.TotalStaleReads(), r.Stats.StaleReads["brokerclusters"], r.Stats.StaleReads["statefulsets"])
}

func (r Result) judged() string {
	var safety []string
	for _, rule := range r.Safety {
		safety = append(safety, rule.String())
	}
	return fmt.Sprintf("%d / %d | %d (%d / %d / %d / %d) | %s", r.HistoryChecked, r.HistoryViolations,
		r.WrongDecisions(), r.DoubleDecommissions, r.Untargeted, r.LeftEarly, r.Maintenance, strings.Join(safety, "; "))
}

// relativeTo returns how a result's count compares with the row of the same guards and the
// given strategy, "-" when there is none.
func relativeTo(results []Result, count func(Result) int) func(r Result, strategy string) string {
	byName := map[string]Result{}
	for _, r := range results {
		byName[r.Row.Name()] = r
	}
	return func(r Result, strategy string) string {
		other := r.Row
		other.Strategy = strategy
		base, ok := byName[other.Name()]
		if !ok || count(base) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", float64(count(r))/float64(count(base)))
	}
}
