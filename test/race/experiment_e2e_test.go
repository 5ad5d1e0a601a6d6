//go:build e2e

package race

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// The defaults are the quick mode, which CI runs; the full run sets -clusters and -steps.
var (
	flagWorkload    = flag.String("workload", WorkloadScale+","+WorkloadPools, "the workloads to run, each with every row, comma-separated: scale (scale-downs with scale-ups mixed in), pools (moves between the default pool and pool "+MovePool+")")
	flagClusters    = flag.Int("clusters", 10, "BrokerClusters per row")
	flagSteps       = flag.Int("steps", 3, "scale workload: scale-down steps (one decommission each) per cluster; scale-ups are mixed in")
	flagMoves       = flag.Int("moves", 2, "pools workload: moves per cluster, each decommissioning its 3 brokers")
	flagLag         = flag.String("lag", "0-50ms", "delay of each chunk of the operator's watch streams, MIN-MAX drawn uniformly")
	flagSeed        = flag.Uint64("seed", 0, "seed of the schedules and the lags; 0 draws one from the clock (it is printed)")
	flagRows        = flag.String("rows", "", "rows to run, comma-separated: a strategy, +C for the precondition guard, +D for the admin check, +R for rollouts (scale workload only); all of them: "+AllRows+"; empty: each workload's quick rows, "+QuickRows+" and "+QuickPoolRows)
	flagPodStop     = flag.String("pod-stop", "0", "how long a deleted pod takes to stop before its kubelet removes it, MIN-MAX drawn per pod (a broker shutting down; kwok runs no containers, so 0 is at once)")
	flagWorkers     = flag.Int("workers", 2, "the operator's workers (the binary's default)")
	flagQPS         = flag.Float64("qps", 50, "the operator's client QPS (the binary's default)")
	flagBurst       = flag.Int("burst", 100, "the operator's client burst (the binary's default)")
	flagDrain       = flag.Duration("drain", time.Second, "how long a decommission drains in the simulator")
	flagPoll        = flag.Duration("poll", 500*time.Millisecond, "the operator's DrainPollInterval")
	flagStepTimeout = flag.Duration("step-timeout", 90*time.Second, "a cluster that takes longer on one step counts as stuck")
	flagBringUp     = flag.Duration("bringup-timeout", 5*time.Minute, "a cluster that is not first ready within this counts as stuck (a row creates every cluster at once)")
	flagSettle      = flag.Duration("settle", 0, "wait up to this long for a row's namespace to be deleted before the next row starts; 0 does not wait (the quick mode's small rows leave little to delete)")
	flagOut         = flag.String("out", "", "write the table into this markdown file, between the race-table markers if it has them (relative to the repository root)")
	flagRuns        = flag.Int("runs", 1, "runs of every row, each with its own seed (-seed, then -seed+1, ...); with more than one, a rate table adds the runs up, and -out writes it instead of one run's table")
	flagStrict      = flag.Bool("strict", false, "also fail unless the cache row without guards shows stale reads and wrong decisions, and writeback's requests stay within 5% of cache's")
)

// settings are the parsed flags.
type settings struct {
	workloads                       []string
	rows                            map[string][]Row // by workload
	clusters, steps, moves, workers int
	// runs is -runs; run is which of them this is (0 for the first), and seed its seed.
	runs, run                int
	lag, podStop             harness.Lag
	seed                     uint64
	qps                      float32
	burst                    int
	drain, poll, stepTimeout time.Duration
	bringUp, settle          time.Duration
}

func parseSettings() (settings, error) {
	s := settings{
		runs: *flagRuns, clusters: *flagClusters, steps: *flagSteps, moves: *flagMoves, workers: *flagWorkers, seed: *flagSeed,
		qps: float32(*flagQPS), burst: *flagBurst, drain: *flagDrain, poll: *flagPoll, stepTimeout: *flagStepTimeout,
		bringUp: *flagBringUp, settle: *flagSettle,
	}
	var err error
	if s.lag, err = harness.ParseLag(*flagLag); err != nil {
		return s, err
	}
	if s.podStop, err = harness.ParseLag(*flagPodStop); err != nil {
		return s, fmt.Errorf("-pod-stop: %w", err)
	}
	if s.workloads, err = ParseWorkloads(*flagWorkload); err != nil {
		return s, err
	}
	s.rows = map[string][]Row{}
	for _, w := range s.workloads {
		if s.rows[w], err = RowsFor(w, *flagRows); err != nil {
			return s, err
		}
	}
	if s.runs < 1 || s.clusters < 1 || s.steps < 1 || s.moves < 1 || s.workers < 1 || s.burst < 1 || s.qps <= 0 {
		return s, fmt.Errorf("-runs, -clusters, -steps, -moves, -workers, -qps and -burst must be positive")
	}
	if s.drain < 0 || s.settle < 0 || s.poll <= 0 || s.stepTimeout <= 0 || s.bringUp <= 0 {
		return s, fmt.Errorf("-drain and -settle must not be negative; -poll, -step-timeout and -bringup-timeout must be positive")
	}
	s.seed = harness.DrawSeed(s.seed)
	return s, nil
}

// commandLine is the command that replays this run: every flag set, and the seed.
func commandLine(seed uint64) string {
	return framework.ReplayCommand("go test -tags e2e ./test/race -run TestRaceExperiment -count=1 -v", seed)
}

// TestRaceExperiment runs every row of every workload on one real control plane and reports a
// table per workload. It fails if a writeback row ever reads older than the operator's own
// write, makes a wrong decision, leaves a cluster stuck or breaks a session guarantee in its
// recorded history (test/history), and if the cache row's history shows no violation; with
// -strict, also if the seed's bug does not show in the cache row without guards, or writeback
// costs more than 5% over cache in API requests.
func TestRaceExperiment(t *testing.T) {
	s, err := parseSettings()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d (replay: %s)", s.seed, commandLine(s.seed))
	logToFile(t)
	cp := framework.StartForTest(t, framework.Options{PodStop: podStopTimes(s.podStop, s.seed)})
	adminCfg := cp.AdminConfig()
	adminCfg.QPS, adminCfg.Burst = 1000, 2000 // the harness must never be the bottleneck
	kube, err := kubernetes.NewForConfig(adminCfg)
	if err != nil {
		t.Fatal(err)
	}
	brokers, err := versioned.NewForConfig(adminCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := installCRD(ctx, adminCfg, brokers); err != nil {
		t.Fatal(err)
	}

	for _, workload := range s.workloads {
		t.Run(workload, func(t *testing.T) { runWorkload(ctx, t, cp, kube, brokers, s, workload) })
	}
}

// runWorkload runs every row of one workload -runs times, and with more than one run reports
// the rate table that adds them up.
func runWorkload(ctx context.Context, t *testing.T, cp *framework.ControlPlane, kube kubernetes.Interface, brokers versioned.Interface, s settings, workload string) {
	if len(s.rows[workload]) == 0 {
		t.Skipf("no row of -rows=%s runs the %s workload: a rollout does not run during a move between pools (+R)", *flagRows, workload)
	}
	if s.runs == 1 {
		runOnce(ctx, t, cp, kube, brokers, s, workload, *flagOut)
		return
	}
	started := time.Now()
	var runs [][]Result
	var seeds []uint64
	for r := range s.runs {
		one := s
		one.run, one.seed = r, s.seed+uint64(r)
		t.Logf("run %d of %d: seed %d", r+1, s.runs, one.seed)
		runs = append(runs, runOnce(ctx, t, cp, kube, brokers, one, workload, ""))
		seeds = append(seeds, one.seed)
		if t.Failed() {
			break
		}
	}
	var table strings.Builder
	h := RateHeader{Command: commandLine(s.seed), Workload: workload, Seeds: seeds, Clusters: s.clusters, PodStop: s.podStop, Started: started, Took: time.Since(started)}
	if err := WriteRateTable(&table, h, runs); err != nil {
		t.Fatal(err)
	}
	t.Logf("rates:\n%s", table.String())
	if *flagOut != "" {
		begin, end := rateTableBegin, rateTableEnd
		if workload == WorkloadPools {
			begin, end = poolRateTableBegin, poolRateTableEnd
		}
		if err := framework.WriteBetweenMarkers(*flagOut, begin, end, table.String()); err != nil {
			t.Error(err)
		}
	}
}

// runOnce runs every row of one workload once, reports its table (into out, when set), checks
// it, and returns its results.
func runOnce(ctx context.Context, t *testing.T, cp *framework.ControlPlane, kube kubernetes.Interface, brokers versioned.Interface, s settings, workload, out string) []Result {
	started := time.Now()
	rows := s.rows[workload]
	var results []Result
	for i, row := range rows {
		res, err := runRow(ctx, t, cp, kube, brokers, s, workload, i, row)
		if err != nil {
			t.Fatalf("row %s: %v", row.Name(), err)
		}
		results = append(results, res)
	}

	var table strings.Builder
	command := commandLine(s.seed)
	if s.runs > 1 { // this run alone
		command = strings.Replace(command, fmt.Sprintf(" -runs=%d ", s.runs), " -runs=1 ", 1)
	}
	h := Header{Command: command, Workload: workload, Moves: s.moves, Seed: s.seed, Lag: s.lag, PodStop: s.podStop, Clusters: s.clusters,
		Decommissions: s.steps, Workers: s.workers, DrainTime: s.drain, DrainPoll: s.poll, Started: started, Took: time.Since(started)}
	begin, end := tableBegin, tableEnd
	if workload == WorkloadPools {
		h.Decommissions = s.moves * PoolBrokers
		begin, end = poolTableBegin, poolTableEnd
	}
	if err := WriteTable(&table, h, results); err != nil {
		t.Fatal(err)
	}
	t.Logf("results:\n%s", table.String())
	if out != "" {
		if err := framework.WriteBetweenMarkers(out, begin, end, table.String()); err != nil {
			t.Error(err)
		}
	}
	check(t, workload, results, *flagStrict)
	return results
}

// check fails the test on what must never happen, and with strict on what the issue asks the
// full run to show. API requests are compared over the whole row for the scale workload, and
// over the moves (bring-up left out) for the pool-move workload, as its table gives them.
func check(t *testing.T, workload string, results []Result, strict bool) {
	byName := map[string]Result{}
	for _, r := range results {
		byName[r.Row.Name()] = r
		// Every row: the history is evidence enough, and the two judges of each safety rule
		// agree and judged something where the row made such calls.
		if r.HistoryErr != "" {
			t.Errorf("%s: %s", r.Row.Name(), r.HistoryErr)
		}
		for i, rule := range r.Safety {
			for _, p := range rule.Problems(r.expectJudged(i)) {
				t.Errorf("%s: %s", r.Row.Name(), p)
			}
		}
		if r.Row.Strategy != "writeback" {
			continue
		}
		if n := r.Stats.TotalStaleReads(); n > 0 {
			t.Errorf("%s: %d stale reads", r.Row.Name(), n)
		}
		if n := r.HistoryViolations; n > 0 {
			t.Errorf("%s: the history checker found %d violations", r.Row.Name(), n)
		}
		if n := r.WrongDecisions(); n > 0 {
			t.Errorf("%s: %d wrong decisions", r.Row.Name(), n)
		}
		if r.Stuck > 0 {
			t.Errorf("%s: %d stuck clusters", r.Row.Name(), r.Stuck)
		}
	}
	// The checker is itself checked: the plain cache's histories must show what it reads stale.
	// The quick pool-move cache row read stale as rarely as once a run (under -race), too rarely
	// to ask it of every run: only the scale workload's cache row, or -strict, must show one.
	if cache, ok := byName["cache"]; ok && cache.HistoryViolations == 0 && (workload == WorkloadScale || strict) {
		t.Errorf("cache: the history checker found no violation in %d events; it no longer sees stale reads", cache.HistoryChecked)
	}
	if !strict {
		return
	}
	cache, ok := byName["cache"]
	if !ok {
		t.Error("-strict needs the cache row")
		return
	}
	if cache.Stats.TotalStaleReads() == 0 || cache.WrongDecisions() == 0 {
		t.Errorf("cache without guards: %d stale reads, %d wrong decisions; the seed's bug did not show: raise -lag", cache.Stats.TotalStaleReads(), cache.WrongDecisions())
	}
	requests := func(r Result) int { return r.Stats.TotalRequests() }
	if workload == WorkloadPools {
		requests = func(r Result) int { return r.StepRequests }
	}
	if wb, ok := byName["writeback"]; ok {
		if ratio := float64(requests(wb)) / float64(requests(cache)); ratio > 1.05 {
			t.Errorf("writeback sent %.2f× cache's API requests, more than 5%% over", ratio)
		}
	}
}

// checkHistory checks the row's recorded history (test/history), logs the checker's summary and
// its first violations, and returns its report.
func checkHistory(t *testing.T, row Row, hist *history.Recorder) *history.Report {
	report := history.Check(history.Input{Histories: []*history.History{hist.History()}})
	t.Logf("row %s: history: %s", row.Name(), report.Summary())
	for i, v := range report.Violations {
		if i == 3 {
			t.Logf("row %s: history: ... %d more violations", row.Name(), len(report.Violations)-3)
			break
		}
		t.Logf("row %s: history: %v", row.Name(), v)
	}
	return report
}

// runRow runs one row in its own namespace and returns what it measured.
func runRow(ctx context.Context, t *testing.T, cp *framework.ControlPlane, kube kubernetes.Interface, brokers versioned.Interface, s settings, workload string, index int, row Row) (Result, error) {
	ns := fmt.Sprintf("race-%s-%d-%s", workload, index, strings.ToLower(strings.ReplaceAll(row.Name(), "+", "-")))
	if s.run > 0 {
		ns = fmt.Sprintf("%s-run%d", ns, s.run)
	}
	names := make([]string, s.clusters)
	for i := range names {
		names[i] = fmt.Sprintf("bc-%03d", i)
	}
	res := Result{Row: row, Clusters: s.clusters}
	plans, err := plans(workload, s.seed, s.clusters, s.steps, s.moves, row.Rollout)
	if err != nil {
		return res, err
	}
	for _, p := range plans {
		res.Decommissions += p.decommissions
		res.Steps += len(p.steps)
	}
	t.Logf("row %s: namespace %s, %d clusters, %d steps, %d decommissions", row.Name(), ns, s.clusters, res.Steps, res.Decommissions)

	if err := createNamespace(ctx, kube, ns); err != nil {
		return res, err
	}
	volumes, err := createVolumes(ctx, kube, ns, names, plans)
	if err != nil {
		return res, err
	}
	if err := awaitVolumesBound(ctx, kube, ns, volumes, s.bringUp); err != nil {
		return res, err
	}
	sim := admintest.NewServer(admintest.Options{DrainTime: s.drain})
	defer sim.Close()
	for i, p := range plans {
		for pool := range p.volumes {
			// Before the operator renders its address template, which names only the pools
			// that exist then.
			sim.Cluster(ns, names[i]).Pool(pool)
		}
	}
	w := newWorld(ns, kube, brokers, sim)
	worldCtx, stopWorld := context.WithCancel(ctx)
	defer func() { stopWorld(); w.shutdown() }()
	if err := w.start(worldCtx); err != nil {
		return res, err
	}

	// The operator: its own clients, counted, their watches delayed.
	hist := history.NewRecorder("operator-" + row.Name())
	rec := NewRecorder(RecorderOptions{Lag: s.lag, Seed: s.seed + uint64(index), History: hist})
	opCfg := cp.AdminConfig()
	opCfg.QPS, opCfg.Burst = s.qps, s.burst
	opCfg.ContentType = "application/json" // the recorder reads resourceVersions from JSON answers
	opCfg.WrapTransport = rec.Wrap
	ctrl, registry, err := newOperator(opCfg, ns, sim, s, row, rec, hist)
	if err != nil {
		return res, err
	}
	cpuBefore := cpuTime()
	opCtx, stopOperator := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(opCtx, s.workers) }()
	peak := sampleOverlays(opCtx, ctrl)

	begin := time.Now()
	var upRequests, upAdminCalls int
	var upCPU time.Duration
	runs := driveAll(ctx, w, brokers, names, plans, s.bringUp, s.stepTimeout, func() {
		upRequests, upAdminCalls, upCPU = harness.Total(rec.Requests()), len(sim.Calls()), cpuTime()
	})
	res.Converge = time.Since(begin)
	t.Logf("row %s: requests by resource %v; reconciles %v; decisions %v", row.Name(), rec.RequestsByResource(),
		counters(registry, "broker_operator_reconciles_total"), counters(registry, "broker_operator_decisions_total"))
	res.StepRequests, res.StepAdminCalls, res.StepCPU = harness.Total(rec.Requests())-upRequests, len(sim.Calls())-upAdminCalls, cpuTime()-upCPU

	stopOperator()
	select {
	case err := <-done:
		if err != nil {
			return res, fmt.Errorf("operator: %w", err)
		}
	case <-time.After(time.Minute):
		return res, fmt.Errorf("operator did not stop within a minute")
	}
	res.CPU = cpuTime() - cpuBefore
	res.PeakOverlay = int(peak.Load())
	report := checkHistory(t, row, hist)
	res.Stats = Stats{Requests: rec.Requests(), StaleReads: report.StaleReads()}
	res.HistoryChecked, res.HistoryViolations = report.Events, len(report.Violations)
	if err := report.Err(); err != nil {
		res.HistoryErr = err.Error()
	}
	// The admin check either skips a broker that left (counted as a guard firing) or adopts a
	// drain in progress instead of starting a second one (counted as a decision).
	res.GuardFirings = int(sumCounter(registry, "broker_operator_guard_fired_total", ""))

	var steps, bringUps []time.Duration
	maintenanceCalls := 0
	doubles, left := sim.DoubleDecommissions(), sim.LeftBeforeDecommission()
	res.DoubleDecommissions, res.LeftEarly = len(doubles), len(left)
	var wrong []string
	for _, run := range runs {
		steps = append(steps, run.steps...)
		bringUps = append(bringUps, run.bringUp)
		c := sim.Cluster(ns, run.name)
		why := harness.Untargeted(run.name, c.Calls(), harness.Ordinals(c), run.marks)
		n := len(why)
		res.Untargeted += n
		wrong = append(wrong, why...)
		n, why = maintenanceOverlaps(sim.Cluster(ns, run.name), run.name)
		res.Maintenance += n
		wrong = append(wrong, why...)
		maintenanceCalls += harness.MaintenanceCalls(c.Calls())
		if len(c.DoubleDecommissions()) > 0 {
			res.ClustersWithDouble++
		}
		if run.stuck != "" {
			res.Stuck++
			t.Logf("row %s: cluster %s stuck: %s", row.Name(), run.name, run.stuck)
		}
	}
	res.Safety = []harness.Rule{
		{Name: "double decommissions", History: harness.HistoryTally(report, history.OneDecommission),
			Simulator: harness.DecommissionTally(sim.Calls(), doubles)},
		{Name: "brokers in maintenance at once", History: harness.HistoryTally(report, history.OneUnavailable),
			Simulator: harness.Tally{Judged: maintenanceCalls, Violations: res.Maintenance}},
	}
	for _, rule := range res.Safety {
		t.Logf("row %s: %s", row.Name(), rule)
	}
	res.StepP50, res.StepP95, res.StepP99 = harness.Quantile(steps, 0.5), harness.Quantile(steps, 0.95), harness.Quantile(steps, 0.99)
	t.Logf("row %s: bring-up p50 %s, max %s", row.Name(), harness.Quantile(bringUps, 0.5).Round(time.Millisecond), harness.Quantile(bringUps, 1).Round(time.Millisecond))
	for _, list := range [][]string{doubles, wrong, left} {
		for i, why := range list {
			if i == 5 {
				t.Logf("row %s: ... %d more", row.Name(), len(list)-5)
				break
			}
			t.Logf("row %s: wrong decision: %s", row.Name(), why)
		}
	}
	t.Logf("row %s: %d stale reads, %d wrong decisions, %d stuck, %d requests %v, converged in %s, CPU %s, peak overlay %d",
		row.Name(), res.Stats.TotalStaleReads(), res.WrongDecisions(), res.Stuck, res.Stats.TotalRequests(), res.Stats.Requests,
		res.Converge.Round(time.Millisecond), res.CPU.Round(time.Millisecond), res.PeakOverlay)

	stopWorld()
	if err := removeRow(ctx, kube, ns, s.settle); err != nil {
		t.Logf("row %s: cleanup: %v", row.Name(), err)
	}
	return res, nil
}

func newOperator(cfg *rest.Config, ns string, sim *admintest.Server, s settings, row Row, rec *Recorder, hist *history.Recorder) (*controller.Controller, *prometheus.Registry, error) {
	kubeClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	brokerClient, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	strategy, err := controller.ParseReadStrategy(row.Strategy)
	if err != nil {
		return nil, nil, err
	}
	registry := prometheus.NewRegistry()
	ctrl, err := controller.NewController(controller.Config{
		KubeClient:           kubeClient,
		BrokerClient:         brokerClient,
		Namespaces:           []string{ns},
		AdminAddressTemplate: sim.BrokerAddressTemplate(),
		AdminTimeout:         5 * time.Second,
		Guards:               controller.Guards{SkipAdminCheck: !row.AdminCheck, SkipPrecondition: !row.Precondition},
		Registerer:           registry,
		DrainPollInterval:    s.poll,
		Tracer:               hist,
	}.WithReadStrategy(strategy))
	return ctrl, registry, err
}

// sampleOverlays records the most entries the operator's overlays held at once, looking every
// 10ms until ctx ends.
func sampleOverlays(ctx context.Context, ctrl *controller.Controller) *atomic.Int64 {
	var peak atomic.Int64
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			n := 0
			for _, o := range ctrl.Overlays() {
				n += o.Len()
			}
			if int64(n) > peak.Load() {
				peak.Store(int64(n))
			}
		}
	}()
	return &peak
}

// sumCounter sums a counter vector's values, only those with a label of value labelValue
// unless it is "".
func sumCounter(registry *prometheus.Registry, name, labelValue string) float64 {
	families, err := registry.Gather()
	if err != nil {
		return -1
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelValue == "" || slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetValue() == labelValue }) {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// counters is a counter vector's values by their labels' values, for the log.
func counters(registry *prometheus.Registry, name string) map[string]float64 {
	out := map[string]float64{}
	families, err := registry.Gather()
	if err != nil {
		return out
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var key []string
			for _, l := range m.GetLabel() {
				key = append(key, l.GetValue())
			}
			out[strings.Join(key, ",")] += m.GetCounter().GetValue()
		}
	}
	return out
}

// podStopTimes gives each pod a stop time drawn from stop by its UID and the seed, so that every
// event of one pod gives the same time; nil when stop is zero.
func podStopTimes(stop harness.Lag, seed uint64) func(*corev1.Pod) time.Duration {
	if stop.IsZero() {
		return nil
	}
	return func(p *corev1.Pod) time.Duration {
		h := fnv.New64a()
		h.Write([]byte(p.UID))
		span := uint64(stop.Max-stop.Min) + 1
		return stop.Min + time.Duration((h.Sum64()^seed)%span)
	}
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Markers around each workload's table in a markdown file written with -out.
const (
	tableBegin     = "<!-- race-table:begin -->"
	tableEnd       = "<!-- race-table:end -->"
	poolTableBegin = "<!-- race-pools-table:begin -->"
	poolTableEnd   = "<!-- race-pools-table:end -->"
	// Around the rate table that -runs above 1 writes.
	rateTableBegin     = "<!-- race-rate-table:begin -->"
	rateTableEnd       = "<!-- race-rate-table:end -->"
	poolRateTableBegin = "<!-- race-pools-rate-table:begin -->"
	poolRateTableEnd   = "<!-- race-pools-rate-table:end -->"
)

// logToFile sends the operator's klog output (thousands of retried conflicts in the cache rows)
// to a file kept after the test, and names it.
func logToFile(t *testing.T) {
	f, err := os.CreateTemp("", "race-operator-*.log")
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := fs.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	klog.SetOutput(f)
	t.Cleanup(func() {
		klog.Flush()
		_ = fs.Set("logtostderr", "true")
		_ = f.Close()
	})
	t.Logf("operator logs: %s", f.Name())
}
