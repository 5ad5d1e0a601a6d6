//go:build e2e

package soak

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/test/framework"
)

var (
	flagScale      = flag.String("scale", "", "TestSoakScale: numbers of BrokerClusters to measure at, ascending, comma-separated (e.g. 100,300,1000); empty skips it")
	flagStrategies = flag.String("strategies", "writeback,cache,uncached", "TestSoakScale: read strategies to compare at each size")
	flagProfileDir = flag.String("profile-dir", "", "TestSoakScale: write a CPU profile of each busy phase's first 30 s here, as cpu-<strategy>-<clusters>.pprof (read with go tool pprof)")
	flagQuiet      = flag.String("quiet", "1m", "TestSoakScale: the quiet window at steady state, per strategy: one duration for every size, or one per size (e.g. 1m,1m,10m)")
)

// TestSoakScale brings up BrokerClusters of 3 brokers in stages and, at each size, runs the
// operator once per read strategy: it measures memory and requests at steady state, then scales
// every cluster down by one broker and measures requests, CPU, reconcile latency and queue depth.
func TestSoakScale(t *testing.T) {
	if *flagScale == "" {
		t.Skip("scale mode runs by hand: -scale=100,300,1000 (see docs/soak.md)")
	}
	var stages []int
	for _, f := range strings.Split(*flagScale, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || (len(stages) > 0 && n <= stages[len(stages)-1]) {
			t.Fatalf("-scale=%q: want ascending positive numbers", *flagScale)
		}
		stages = append(stages, n)
	}
	strategies := strings.Split(*flagStrategies, ",")
	quiet, err := QuietWindows(*flagQuiet, len(stages))
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseSettings()
	if err != nil {
		t.Fatal(err)
	}
	s.bringUp, s.scale = 30*time.Minute, true
	started := time.Now()
	h := setUp(t, s)
	h.names = nil // bringUp names the clusters, size by size
	var rows []ScaleRow
	for stage, n := range stages {
		begin := time.Now()
		if err := h.bringUp(n); err != nil {
			t.Fatalf("bring-up to %d clusters: %v", n, err)
		}
		bringUp := time.Since(begin)
		t.Logf("%d clusters up in %s", n, bringUp.Round(time.Second))
		for i, strategy := range strategies {
			row, err := h.measure(n, strategy, quiet[stage])
			if err != nil {
				t.Fatalf("%d clusters, %s: %v", n, strategy, err)
			}
			if i == 0 {
				row.BringUp = bringUp
			}
			t.Logf("%+v", row)
			rows = append(rows, row)
		}
		// Each size's results are kept as soon as they are in: a larger size may not finish.
		var b strings.Builder
		WriteScaleTable(&b, rows)
		fmt.Fprintf(&b, "\nCommand: `go test -tags e2e ./test/soak -run TestSoakScale -count=1 -v -timeout=%s -args -scale=%s -strategies=%s -quiet=%s -seed=%d`; sizes done: %d of %d, after %s.\n",
			flag.Lookup("test.timeout").Value, *flagScale, *flagStrategies, *flagQuiet, s.seed, len(rows)/len(strategies), len(stages), time.Since(started).Round(time.Second))
		t.Logf("scale:\n%s", b.String())
		if s.out != "" {
			if err := framework.WriteBetweenMarkers(s.out, scaleBegin, scaleEnd, b.String()); err != nil {
				t.Error(err)
			}
		}
	}
}

// Markers around the scale tables in a markdown file written with -out.
const (
	scaleBegin = "<!-- scale-table:begin -->"
	scaleEnd   = "<!-- scale-table:end -->"
)

// bringUp creates clusters until there are n, with a writeback operator running, and waits
// until every one is ready at 3 brokers.
func (h *rig) bringUp(n int) error {
	p, _, err := h.startMeasured("writeback", fmt.Sprintf("bringup-%d", n))
	if err != nil {
		return err
	}
	defer h.stopProc(p)
	first := len(h.names)
	for i := first; i < n; i++ {
		h.names = append(h.names, fmt.Sprintf("bc-%04d", i))
	}
	sem := make(chan struct{}, 20)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for _, name := range h.names[first:] {
		wg.Go(func() {
			sem <- struct{}{}
			err := retry(h.ctx, time.Minute, func(ctx context.Context) error {
				_, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Create(ctx, newBrokerCluster(h.ns, name, 3, h.sim.Cluster(h.ns, name).AdminPort()), metav1.CreateOptions{})
				return err
			})
			<-sem
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return h.awaitAll(3)
}

// awaitAll waits until every cluster is steady at target brokers.
func (h *rig) awaitAll(target int32) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var stuck []string
	for _, name := range h.names {
		wg.Go(func() {
			if ok, why, _ := h.world.Await(h.ctx, name, target, h.s.bringUp, nil); !ok {
				mu.Lock()
				stuck = append(stuck, name+": "+why)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(stuck) > 0 {
		slices.Sort(stuck)
		return fmt.Errorf("%d clusters not at %d brokers, e.g. %s", len(stuck), target, stuck[0])
	}
	return nil
}

// scaleAll sets every cluster's spec.replicas.
func (h *rig) scaleAll(target int32) error {
	patch := []byte(`{"spec":{"replicas":` + strconv.Itoa(int(target)) + `}}`)
	sem := make(chan struct{}, 20)
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	for _, name := range h.names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			err := retry(h.ctx, time.Minute, func(ctx context.Context) error {
				_, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
				return err
			})
			if err != nil {
				mu.Lock()
				failed = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

// startMeasured starts a single operator process with a read strategy and a metrics endpoint,
// and returns it with the endpoint's URL.
func (h *rig) startMeasured(strategy, name string) (*proc, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	p, err := h.startProc(name, []string{"--read-strategy=" + strategy, "--metrics-bind-address=" + addr, "--profiling", "--workers=4", "-v=1"})
	return p, "http://" + addr + "/metrics", err
}

func (h *rig) stopProc(p *proc) {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.signal(syscall.SIGKILL)
		<-p.exited
	}
}

// measure runs one operator with strategy over the n clusters: it waits until the operator has
// settled (its queue empty and no reconcile request for 5 s), measures a quiet window, times its
// reaction to single spec changes (reaction_e2e_test.go), then one scale-down of every cluster,
// then scales them back up unmeasured.
func (h *rig) measure(n int, strategy string, quiet time.Duration) (ScaleRow, error) {
	row := ScaleRow{Clusters: n, Strategy: strategy}
	p, url, err := h.startMeasured(strategy, fmt.Sprintf("%s-%d", strategy, n))
	if err != nil {
		return row, err
	}
	defer h.stopProc(p)
	if err := h.settle(p, url); err != nil {
		return row, err
	}
	st0 := p.proxy.Stats()
	select {
	case <-time.After(quiet):
	case <-h.ctx.Done():
		return row, h.ctx.Err()
	}
	m1, err := scrape(h.ctx, url)
	if err != nil {
		return row, err
	}
	st1 := p.proxy.Stats()
	row.QuietPerMin = float64(st1.Work()-st0.Work()) / quiet.Minutes()
	row.RSS, row.Heap = m1.Sum("process_resident_memory_bytes"), m1.Sum("go_gc_heap_live_bytes")

	if *flagReactions > 0 {
		if row.Reactions, row.ReactionPatches, err = h.reactions(*flagReactions); err != nil {
			return row, err
		}
		// The busy phase's counts start once the reactions' property writes are done.
		if err := h.settle(p, url); err != nil {
			return row, err
		}
		if m1, err = scrape(h.ctx, url); err != nil {
			return row, err
		}
		st1 = p.proxy.Stats()
	}

	calls := h.decommissionCalls()
	begin := time.Now()
	depthCtx, stopDepth := context.WithCancel(h.ctx)
	depth := make(chan float64, 1)
	go func() { depth <- maxDepth(depthCtx, url) }()
	profiled := make(chan error, 1)
	go func() { profiled <- profileBusy(h.ctx, url, fmt.Sprintf("cpu-%s-%d.pprof", strategy, n)) }()
	if err := h.scaleAll(2); err != nil {
		stopDepth()
		return row, err
	}
	err = h.awaitAll(2)
	stopDepth()
	row.MaxDepth = <-depth
	if err != nil {
		return row, err
	}
	row.Busy = time.Since(begin)
	m2, err := scrape(h.ctx, url)
	if err != nil {
		return row, err
	}
	st2 := p.proxy.Stats()
	row.BusyRequests = st2.Work() - st1.Work()
	row.BusyWatchBytes = map[string]int64{}
	for res, n := range st2.WatchBytes {
		if d := n - st1.WatchBytes[res]; d > 0 {
			row.BusyWatchBytes[res] = d
		}
	}
	row.BusyCPU = m2.Sum("process_cpu_seconds_total") - m1.Sum("process_cpu_seconds_total")
	row.P50 = m2.Quantile("workqueue_work_duration_seconds", 0.5, m1)
	row.P99 = m2.Quantile("workqueue_work_duration_seconds", 0.99, m1)
	row.Decommissions = h.decommissionCalls() - calls
	if err := <-profiled; err != nil {
		return row, err
	}

	if err := h.scaleAll(3); err != nil {
		return row, err
	}
	return row, h.awaitAll(3)
}

// profileBusy writes a 30 s CPU profile of the operator serving metricsURL into -profile-dir
// under name; without -profile-dir it does nothing.
func profileBusy(ctx context.Context, metricsURL, name string) error {
	if *flagProfileDir == "" {
		return nil
	}
	url := strings.TrimSuffix(metricsURL, "/metrics") + "/debug/pprof/profile?seconds=30"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("CPU profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("CPU profile: %s", resp.Status)
	}
	f, err := os.Create(filepath.Join(*flagProfileDir, name))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("CPU profile: %w", err)
	}
	return f.Close()
}

// settle waits until the operator's queue is empty and it has sent no reconcile request for 5 s.
func (h *rig) settle(p *proc, url string) error {
	deadline := time.Now().Add(10 * time.Minute)
	last, since := -1, time.Now()
	for time.Now().Before(deadline) {
		select {
		case <-time.After(500 * time.Millisecond):
		case <-h.ctx.Done():
			return h.ctx.Err()
		}
		m, err := scrape(h.ctx, url)
		if err != nil {
			continue // not serving yet
		}
		work := p.proxy.Stats().Work()
		if work != last || m.Sum("workqueue_depth") > 0 {
			last, since = work, time.Now()
			continue
		}
		if time.Since(since) >= 5*time.Second {
			return nil
		}
	}
	return fmt.Errorf("the operator did not settle within 10 minutes")
}

// depthEvery is how often the busy phase samples the queue's depth. A scrape of 1,000
// clusters' metrics costs the operator about 23 ms of CPU; at 250 ms the harness's own
// scrapes took a third of the operator's CPU in the phase whose CPU per decommission the
// table reports.
const depthEvery = 2 * time.Second

// maxDepth samples the operator's queue depth every depthEvery until ctx ends and returns
// the highest seen.
func maxDepth(ctx context.Context, url string) float64 {
	peak := 0.0
	for {
		if m, err := scrape(ctx, url); err == nil {
			peak = math.Max(peak, m.Sum("workqueue_depth"))
		}
		select {
		case <-time.After(depthEvery):
		case <-ctx.Done():
			return peak
		}
	}
}

func scrape(ctx context.Context, url string) (Metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Metrics{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Metrics{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Metrics{}, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return ParseMetrics(resp.Body)
}
