//go:build e2e

package soak

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// The defaults are the quick mode, which make test runs; -full sets the full run's defaults, and
// any flag given overrides them.
var (
	flagFull          = flag.Bool("full", false, "the full run: defaults of -clusters=40 -decommissions=10000 -rounds=20 -fault-every=20s -rollout-share=0.05; writes -out")
	flagClusters      = flag.Int("clusters", 0, "BrokerClusters (quick: 6)")
	flagDecommissions = flag.Int("decommissions", 0, "run at least this many decommissions in all (quick: 18)")
	flagRounds        = flag.Int("rounds", 0, "inject every fault kind this many times (quick: 1)")
	flagFaultEvery    = flag.Duration("fault-every", 0, "time between faults (quick: 6s)")
	flagFaultWindow   = flag.Duration("fault-window", 0, "how long windowed faults last (lag, admin faults, slow drains) (quick: 5s)")
	flagMaxDuration   = flag.Duration("max-duration", 0, "stop starting new steps after this long, whatever was reached (quick: 6m; full: 85m)")
	flagLag           = flag.String("lag", "0-100ms", "delay of each chunk of the operator's watch streams while the lag fault is on")
	flagSeed          = flag.Uint64("seed", 0, "seed of the schedules, the faults and the lags; 0 draws one from the clock (it is printed)")
	flagMoveShare     = flag.Float64("move-share", 0, "the chance that a cluster's next step moves every broker to pool blue and back (each cluster's step after its first rollout always does) (quick: 0.1; full: 0.03); -move-share=-1 never moves")
	flagRolloutShare  = flag.Float64("rollout-share", 0, "the chance that a cluster's next step is a rolling restart rather than a scaling step (quick: 0.2; full: 0.05, as a rollout of N brokers takes about N times a scaling step)")
	flagDrain         = flag.Duration("drain", time.Second, "how long a decommission drains in the simulator")
	flagStepTimeout   = flag.Duration("step-timeout", 3*time.Minute, "a cluster that makes no progress on a step for this long (status unchanged) counts as stuck")
	flagOut           = flag.String("out", "", "write the report into this markdown file between the soak-table markers (relative to the repository root; -full defaults to docs/soak.md)")
)

type settings struct {
	full                    bool
	clusters, decommissions int
	rounds                  int
	faultEvery, faultWindow time.Duration
	maxDuration             time.Duration
	lag                     harness.Lag
	seed                    uint64
	drain, stepTimeout      time.Duration
	rolloutShare            float64
	moveShare               float64
	bringUp                 time.Duration
	out                     string
	scale                   bool // TestSoakScale
}

func parseSettings() (settings, error) {
	s := settings{full: *flagFull, clusters: 6, decommissions: 18, rounds: 1, faultEvery: 6 * time.Second, faultWindow: 5 * time.Second,
		maxDuration: 6 * time.Minute, seed: *flagSeed, drain: *flagDrain, stepTimeout: *flagStepTimeout, bringUp: 5 * time.Minute, out: *flagOut,
		rolloutShare: 0.2, moveShare: 0.1}
	if s.full {
		s.clusters, s.decommissions, s.rounds, s.faultEvery, s.faultWindow, s.maxDuration = 40, 10000, 20, 20*time.Second, 15*time.Second, 85*time.Minute
		s.rolloutShare, s.moveShare = 0.05, 0.03
		if s.out == "" {
			s.out = "docs/soak.md"
		}
	}
	setInt := func(v *int, f int) {
		if f != 0 {
			*v = f
		}
	}
	setDur := func(v *time.Duration, f time.Duration) {
		if f != 0 {
			*v = f
		}
	}
	setInt(&s.clusters, *flagClusters)
	setInt(&s.decommissions, *flagDecommissions)
	setInt(&s.rounds, *flagRounds)
	setDur(&s.faultEvery, *flagFaultEvery)
	setDur(&s.faultWindow, *flagFaultWindow)
	setDur(&s.maxDuration, *flagMaxDuration)
	if *flagRolloutShare != 0 {
		s.rolloutShare = *flagRolloutShare
	}
	switch {
	case *flagMoveShare < 0:
		s.moveShare = 0
	case *flagMoveShare > 0:
		s.moveShare = *flagMoveShare
	}
	var err error
	if s.lag, err = harness.ParseLag(*flagLag); err != nil {
		return s, err
	}
	if s.clusters < 1 || s.decommissions < 0 || s.rounds < 1 || s.faultEvery <= 0 || s.faultWindow <= 0 || s.maxDuration <= 0 || s.drain < 0 || s.stepTimeout <= 0 ||
		s.rolloutShare < 0 || s.rolloutShare > 1 || s.moveShare > 1 {
		return s, fmt.Errorf("-clusters, -rounds, -fault-every, -fault-window, -max-duration and -step-timeout must be positive; -decommissions and -drain not negative; -rollout-share between 0 and 1; -move-share at most 1")
	}
	s.seed = harness.DrawSeed(s.seed)
	return s, nil
}

// commandLine is the command that replays this run: every flag set, and the seed.
func commandLine(seed uint64) string {
	return framework.ReplayCommand("go test -tags e2e ./test/soak -run 'TestSoak$' -count=1 -v", seed)
}

// rig is one soak run.
type rig struct {
	t       *testing.T
	ctx     context.Context
	s       settings
	cp      *framework.ControlPlane
	kube    kubernetes.Interface
	brokers versioned.Interface
	sim     *admintest.Server
	world   *world
	ns      string
	names   []string
	dir     string // operator kubeconfigs and logs

	binary, token string
	upstream      http.RoundTripper
	leaseName     string
	replicas      []*replica
	procCount     atomic.Int64
	// decommissioned counts the brokers removed by scale-down steps that converged, the figure
	// the report gives and -decommissions asks for.
	decommissioned atomic.Int64
	lagOn          atomic.Bool
	// nudges asks a cluster's driver to scale up now, and to call the function once that
	// converged (the stuck-drain fault).
	nudges map[string]chan func()
	// drainTraps takes, while the stuck-drain fault waits on it, the next scale-down any driver
	// is about to make: the driver raises its cluster's replication factor first (see trapDrain).
	drainTraps chan trappedDrain
	// imageTraps hands a bad-image-rollout fault to the next driver about to take a step.
	imageTraps chan badRollout
	// badRollouts counts the bad-image-rollout faults; trapMin is the fewest brokers the
	// cluster of the one waiting may have.
	// reactionSamples counts the scale mode's reaction samples, to give each a value of its own.
	reactionSamples atomic.Int64
	badRollouts     atomic.Int64
	trapMin         atomic.Int32
	// pulls keeps the pods of images that cannot be pulled in ImagePullBackOff.
	pulls *pullFailer
	rngMu sync.Mutex
	rng   *rand.Rand

	// relistsSeen and goneSeen are the totals at the last attribute call.
	relistsSeen, goneSeen int

	mu       sync.Mutex
	procs    []*proc
	failures []string
	// outages are the brokers the broker-down-during-restart fault took down, by cluster.
	outages map[string][]Outage
	// unavailable are the spans no admin call shows (a pod that cannot start, a recovery),
	// for the history checker's OneUnavailable (judgeRestarts).
	unavailable []history.Outage
}

// fail records a failure from any goroutine; the test reports it at the end.
func (h *rig) fail(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures = append(h.failures, fmt.Sprintf(format, args...))
}

func (h *rig) setLag(on bool) {
	h.lagOn.Store(on)
	for _, r := range h.replicas {
		if p := r.current(); p != nil {
			p.proxy.SetLag(on)
		}
	}
}

// pick draws n distinct cluster names.
func (h *rig) pick(n int) []string {
	h.rngMu.Lock()
	defer h.rngMu.Unlock()
	perm := h.rng.Perm(len(h.names))[:n]
	out := make([]string, n)
	for i, j := range perm {
		out[i] = h.names[j]
	}
	slices.Sort(out)
	return out
}

func (h *rig) operatorFlags(kubeconfig string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--namespace=" + h.ns,
		"--leader-elect=true",
		"--leader-elect-lease-namespace=" + brokersim.OperatorNamespace,
		"--leader-elect-lease-name=" + h.leaseName,
		"--leader-elect-lease-duration=4s",
		"--leader-elect-renew-deadline=3s",
		"--leader-elect-retry-period=500ms",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
		"--admin-address-template=" + h.sim.BrokerAddressTemplate(),
		"--admin-timeout=2s",
		"--drain-poll-interval=200ms",
		"--shutdown-timeout=10s",
		"-v=4",
	}
}

// TestSoak runs many BrokerClusters through random scaling while faults are injected, and fails
// on any violation the history checker finds (a stale read among them), on a history that is
// no evidence (history.Report.Err), on any double or untargeted decommission, broker that left
// early, or stuck cluster, and when the history and the simulator disagree on a safety rule or
// one of them judged nothing.
func TestSoak(t *testing.T) {
	s, err := parseSettings()
	if err != nil {
		t.Fatal(err)
	}
	mode := "quick"
	if s.full {
		mode = "full"
	}
	started := time.Now()
	t.Logf("%s mode, seed %d (replay: %s)", mode, s.seed, commandLine(s.seed))
	h := setUp(t, s)
	h.replicas = []*replica{h.startReplica("a"), h.startReplica("b")}
	t.Cleanup(h.stopOperators)

	kinds := faultKinds()
	var names []string
	for _, k := range kinds {
		names = append(names, k.name)
	}
	plan := NewPlan(s.seed, names, s.rounds)
	var stop atomic.Bool
	runs := make([]*clusterRun, len(h.names))
	var drivers sync.WaitGroup
	for i, name := range h.names {
		drivers.Go(func() { runs[i] = h.drive(h.ctx, name, rand.New(rand.NewPCG(s.seed, uint64(i))), &stop) })
	}

	// Faults, one every faultEvery, until the plan is done; then until enough decommissions.
	type injection struct {
		kind string
		at   time.Time
	}
	var injections []injection
	stats := map[string]*FaultStats{}
	for _, k := range kinds {
		stats[k.name] = &FaultStats{Kind: k.name, What: k.what}
	}
	byName := map[string]faultKind{}
	for _, k := range kinds {
		byName[k.name] = k
	}
	deadline := started.Add(s.maxDuration)
	var last *FaultStats // the fault the relists seen since are put down to
	for i := 0; ; i++ {
		if time.Now().After(deadline) {
			t.Logf("-max-duration %s reached: stopping with %d of %d faults injected", s.maxDuration, min(i, len(plan)), len(plan))
			break
		}
		if i >= len(plan) && h.decommissioned.Load() >= int64(s.decommissions) {
			break
		}
		select {
		case <-time.After(s.faultEvery):
		case <-h.ctx.Done():
		}
		if h.ctx.Err() != nil {
			break
		}
		kind := plan[i%len(plan)] // past the plan: its rounds again, until enough decommissions
		h.attribute(last)
		last = stats[kind]
		at := time.Now()
		note, err := byName[kind].inject(h.ctx, h)
		if err != nil {
			h.fail("fault %s: %v", kind, err)
			continue
		}
		injections = append(injections, injection{kind, at})
		st := stats[kind]
		st.Injected++
		st.Notes = append(st.Notes, note)
		t.Logf("fault %d %s: %s (%d decommissions so far)", i+1, kind, note, h.decommissioned.Load())
	}
	stop.Store(true)
	drivers.Wait()
	h.attribute(last)
	h.setLag(false)

	// Judge, from the simulator's call log and the apiserver's objects.
	res := Result{Mode: mode, Command: commandLine(s.seed), Seed: s.seed, Started: started, Clusters: len(h.names)}
	var stepTimes []time.Duration
	var wrong []string
	for _, run := range runs {
		for _, st := range run.steps {
			if st.End.IsZero() {
				continue
			}
			stepTimes = append(stepTimes, st.End.Sub(st.Start))
			if st.Rollout {
				res.Rollouts++
				continue
			}
			if st.Moved > 0 {
				res.Moves++
				continue
			}
			res.Steps++
			if st.To > st.From {
				res.ScaleUps++
			}
		}
		res.Decommissions += run.decommissions()
		if run.stuck != "" {
			res.Stuck++
			wrong = append(wrong, "stuck: "+run.name+": "+run.stuck)
		}
		c := h.sim.Cluster(h.ns, run.name)
		u := harness.Untargeted(run.name, c.Calls(), harness.Ordinals(c), run.marks)
		res.Untargeted += len(u)
		wrong = append(wrong, u...)
		wrong = append(wrong, h.judgeRestarts(&res, run.name, c)...)
	}
	for _, in := range injections {
		var steps []Step
		for _, run := range runs {
			steps = append(steps, run.steps...)
		}
		stats[in.kind].Converge = append(stats[in.kind].Converge, ConvergeAfter(in.at, steps)...)
	}
	for _, k := range kinds {
		res.Faults = append(res.Faults, *stats[k.name])
	}
	wrong = append(wrong, h.judgePodDowns(&res)...)
	doubles, left := h.sim.DoubleDecommissions(), h.sim.LeftBeforeDecommission()
	res.DoubleDecommissions, res.LeftEarly = len(doubles), len(left)
	wrong = append(append(wrong, doubles...), left...)
	res.StepP50, res.StepP99, res.StepMax = harness.Quantile(stepTimes, 0.5), harness.Quantile(stepTimes, 0.99), harness.Quantile(stepTimes, 1)
	res.LeaderChanges = h.world.LeaderChanges()
	res.ComponentRestarts = h.cp.Restarts()

	h.stopOperators()
	res.Took = time.Since(started)
	res.Requests = map[string]int{}
	h.mu.Lock()
	res.OperatorStarts = len(h.procs)
	for _, p := range h.procs {
		st := p.proxy.Stats()
		for v, n := range st.Requests {
			res.Requests[v] += n
		}
		res.Relists += st.Relists()
		res.Gone += st.Gone
		res.WatchesCut += st.WatchesCut
	}
	h.mu.Unlock()
	if res.History, err = h.checkHistories(); err != nil {
		h.fail("history check: %v", err)
	} else {
		t.Logf("history checker: %s", res.History.Summary())
		for _, v := range res.History.Violations {
			wrong = append(wrong, v.String())
		}
		if err := res.History.Err(); err != nil {
			h.fail("%v", err)
		}
		res.judgeSafety(h.sim.Calls(), doubles)
		for _, rule := range res.Safety {
			t.Logf("%s", rule)
		}
		for _, p := range res.SafetyProblems() {
			h.fail("%s", p)
		}
	}
	h.mu.Lock()
	failures := slices.Clone(h.failures)
	h.mu.Unlock()

	var report strings.Builder
	if err := WriteReport(&report, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", report.String())
	if s.out != "" {
		if err := framework.WriteBetweenMarkers(s.out, reportBegin, reportEnd, report.String()); err != nil {
			t.Error(err)
		}
	}
	for i, w := range wrong {
		if i == 20 {
			t.Errorf("... and %d more", len(wrong)-20)
			break
		}
		t.Errorf("violation: %s", w)
	}
	for _, f := range failures {
		t.Error(f)
	}
	for _, f := range res.Faults {
		if f.Injected < s.rounds && time.Since(started) < s.maxDuration {
			t.Errorf("fault %s injected %d times, want at least %d", f.Kind, f.Injected, s.rounds)
		}
	}
	if !s.full && res.Decommissions == 0 {
		t.Error("no decommission converged")
	}
	if !s.full && res.Rollouts == 0 {
		t.Error("no rolling restart converged")
	}
	if !s.full && s.moveShare > 0 && res.Moves == 0 {
		t.Error("no pool move converged")
	}
	if t.Failed() {
		t.Logf("operator logs kept in %s", h.dir)
	}
}

// attribute puts the relists and 410s the operator's proxies counted since the last call down to
// f, the fault injected then.
func (h *rig) attribute(f *FaultStats) {
	relists, gone := 0, 0
	h.mu.Lock()
	for _, p := range h.procs {
		st := p.proxy.Stats()
		relists += st.Relists()
		gone += st.Gone
	}
	h.mu.Unlock()
	if f != nil {
		f.Relists += relists - h.relistsSeen
		f.Gone += gone - h.goneSeen
	}
	h.relistsSeen, h.goneSeen = relists, gone
}

// decommissionCalls counts the decommission requests the brokers accepted so far (the scale
// run's busy phase).
func (h *rig) decommissionCalls() int {
	n := 0
	for _, c := range h.sim.Calls() {
		if c.Method == http.MethodPut && c.Status == http.StatusOK && strings.HasSuffix(c.Path, "/decommission") {
			n++
		}
	}
	return n
}

// setUp starts the control plane, the simulator and the operator's two replicas.
func setUp(t *testing.T, s settings) *rig {
	ctx := t.Context()
	h := &rig{t: t, ctx: ctx, s: s, ns: "soak", leaseName: "broker-operator-soak", rng: rand.New(rand.NewPCG(s.seed, 0x50a6))}
	h.nudges = map[string]chan func(){}
	h.outages = map[string][]Outage{}
	h.drainTraps = make(chan trappedDrain)
	h.imageTraps = make(chan badRollout)
	for i := range s.clusters {
		name := fmt.Sprintf("bc-%03d", i)
		h.names = append(h.names, name)
		h.nudges[name] = make(chan func())
	}
	var err error
	if h.dir, err = os.MkdirTemp("", "soak-operators-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(h.dir)
		}
	})
	root, err := framework.RepositoryRoot()
	if err != nil {
		t.Fatal(err)
	}
	h.binary = filepath.Join(h.dir, "broker-operator")
	args := []string{"build", "-o", h.binary}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.CommandContext(ctx, "go", append(args, "./cmd/broker-operator")...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the operator: %v\n%s", err, out)
	}

	h.cp = framework.StartForTest(t, framework.Options{})
	admin := h.cp.AdminConfig()
	admin.QPS, admin.Burst = 1000, 2000 // the harness must never be the bottleneck
	h.kube = kubernetes.NewForConfigOrDie(admin)
	h.brokers = versioned.NewForConfigOrDie(admin)
	if err := brokersim.Install(ctx, root, h.cp.KubeconfigPath); err != nil {
		t.Fatal(err)
	}
	saKubeconfig, err := h.cp.ServiceAccountKubeconfig(ctx, brokersim.OperatorNamespace, brokersim.OperatorServiceAccount, 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if h.token, err = tokenOf(saKubeconfig); err != nil {
		t.Fatal(err)
	}
	// The proxies reach the apiserver trusting its CA and with no credentials of their own: each
	// request carries the operator's token.
	if h.upstream, err = rest.TransportFor(&rest.Config{Host: h.cp.APIServerURL, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: h.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Each cluster reserves a block of loopback ports, one per pod ordinal: the soak's clusters
	// reach 7 brokers, the scale mode's 3. The simulated node_management_operation_timeout is
	// under the operator's --admin-timeout, so that the 504 reaches it.
	ports := maxReplicas + 1
	if s.scale {
		ports = 4
	}
	if h.sim, err = admintest.Start(admintest.Options{DrainTime: s.drain, PortsPerCluster: ports, NodeOperationTimeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.sim.Close)
	if !s.scale && s.moveShare > 0 {
		// Before the operator renders its address template, which names only the pools that
		// exist then (admintest.Server.BrokerAddressTemplate).
		for _, name := range h.names {
			h.sim.Cluster(h.ns, name).Pool(movePool)
		}
	}
	pods, err := brokersim.StartPodSync(context.WithoutCancel(ctx), h.kube, h.sim, h.ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pods.Stop)
	volumes, err := brokersim.StartVolumeBinder(context.WithoutCancel(ctx), h.kube, h.ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(volumes.Stop)
	if h.pulls, err = startPullFailer(context.WithoutCancel(ctx), h.kube, h.ns, h.sim, pods); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.pulls.stop)
	worldCtx, stopWorld := context.WithCancel(context.WithoutCancel(ctx))
	if h.world, err = newWorld(worldCtx, h.ns, h.leaseName, h.kube, h.brokers, h.sim, pods); err != nil {
		stopWorld()
		t.Fatal(err)
	}
	t.Cleanup(func() { stopWorld(); h.world.shutdown() })

	return h
}

// stopOperators stops both replicas; it may be called more than once.
func (h *rig) stopOperators() {
	for _, r := range h.replicas {
		r.stop(30 * time.Second)
	}
}
