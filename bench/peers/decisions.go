package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/race"
)

// shape is M objects that each go through K dependent steps; crossKind records the steps in a
// kind the controller does not watch.
type shape struct {
	objects, steps int
	crossKind      bool
}

func (s shape) String() string {
	text := fmt.Sprintf("%d×%d", s.objects, s.steps)
	if s.crossKind {
		text += ", writes Secrets, watches ConfigMaps"
	}
	return text
}

func (s shape) record() recordKind {
	if s.crossKind {
		return secretRecord
	}
	return configMapRecord
}

// parseShapes parses "1x6,40x6".
func parseShapes(text string, crossKind bool) ([]shape, error) {
	var out []shape
	for _, part := range strings.Split(text, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		m, k, ok := strings.Cut(part, "x")
		objects, err1 := strconv.Atoi(m)
		steps, err2 := strconv.Atoi(k)
		if !ok || err1 != nil || err2 != nil || objects < 1 || steps < 1 {
			return nil, fmt.Errorf("shape %q: want OBJECTSxSTEPS such as 40x6", part)
		}
		out = append(out, shape{objects: objects, steps: steps, crossKind: crossKind})
	}
	return out, nil
}

type decisionsBench struct {
	workers    int
	rowTimeout time.Duration
	rows       int
}

type decisionResult struct {
	strategy string
	shape    shape
	lag      harness.Lag
	err      error
	finished time.Duration
	// actions, wrong, turned, waits and idles count syncs until the last step was written.
	actions, wrong, turned, waits, idles int
	requests                             int
	cpu                                  time.Duration
	latencies                            []time.Duration
	// longestRetry is the longest delay the rate limiter gave a sync that failed or was turned away.
	longestRetry time.Duration
}

func (r decisionResult) stepCount() int { return r.shape.objects * r.shape.steps }

// runRow runs one strategy over fresh objects in a namespace of its own until every object has
// reached its last step, or the row times out.
func (b *decisionsBench) runRow(ctx context.Context, cp *framework.ControlPlane, admin kubernetes.Interface, sh shape, nd namedDecider, lag harness.Lag) decisionResult {
	r := decisionResult{strategy: nd.name, shape: sh, lag: lag}
	b.rows++
	ns := fmt.Sprintf("decisions-%d", b.rows)
	keys, err := createObjects(ctx, admin, ns, sh)
	if err != nil {
		r.err = err
		return r
	}
	rec := race.NewRecorder(race.RecorderOptions{Lag: lag, Seed: uint64(b.rows)})
	cfg := cp.AdminConfig()
	cfg.QPS, cfg.Burst = 5000, 5000 // client-side throttling would measure the limiter, not the strategy
	cfg.WrapTransport = rec.Wrap
	ctx, cancel := context.WithTimeout(ctx, b.rowTimeout)
	defer cancel()
	limiter := newObservedLimiter()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig[string](limiter,
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "decisions"})
	defer queue.ShutDown()
	ours := sets.New(keys...) // the row's namespace also holds kube-controller-manager's kube-root-ca.crt
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil && ours.Has(key) {
			queue.Add(key)
		}
	}
	d := nd.new()
	if r.err = d.start(ctx, cfg, sh.record(), enqueue); r.err != nil {
		return r
	}
	t := newTracker(keys, sh.steps)
	c := &decisionController{d: d, waitsInRead: nd.waitsInRead, steps: sh.steps, queue: queue, track: t}
	requests0, cpu0 := harness.Total(rec.Requests()), cpuTime()
	t.begin()
	for _, k := range keys {
		queue.Add(k)
	}
	var wg sync.WaitGroup
	for range b.workers {
		wg.Go(func() { c.worker(ctx) })
	}
	timedOut := false
	select {
	case <-t.done:
	case <-ctx.Done():
		timedOut = true
	}
	r.requests, r.cpu, r.longestRetry = harness.Total(rec.Requests())-requests0, cpuTime()-cpu0, limiter.max()
	cancel()
	queue.ShutDown()
	wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	r.finished, r.latencies = t.finished, t.latencies
	r.actions, r.wrong, r.turned, r.waits, r.idles = t.actions, t.wrong, t.turned, t.waits, t.idles
	if timedOut {
		r.err = fmt.Errorf("stopped after %s with %d of %d steps done", b.rowTimeout, r.actions-r.wrong, r.stepCount())
	}
	return r
}

// createObjects creates the watched ConfigMaps (and, for a cross-kind shape, the Secrets that
// record the steps) and returns their keys.
func createObjects(ctx context.Context, admin kubernetes.Interface, ns string, sh shape) ([]string, error) {
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	var keys []string
	for i := range sh.objects {
		name := fmt.Sprintf("step-%03d", i)
		if err := configMapRecord.create(ctx, admin, ns, name); err != nil {
			return nil, err
		}
		if sh.crossKind {
			if err := secretRecord.create(ctx, admin, ns, name); err != nil {
				return nil, err
			}
		}
		keys = append(keys, ns+"/"+name)
	}
	return keys, nil
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runDecisions runs every shape, at no lag and at lag, through every strategy.
func runDecisions(ctx context.Context, b *decisionsBench, shapes []shape, lag harness.Lag, only string) error {
	cp, err := framework.Start(ctx, framework.Options{Logf: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }})
	if err != nil {
		return err
	}
	defer cp.Stop()
	admin, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		return err
	}
	var results []decisionResult
	for _, sh := range shapes {
		for _, l := range []harness.Lag{{}, lag} {
			for _, nd := range deciders {
				if only != "" && !strings.Contains(nd.name, only) {
					continue
				}
				fmt.Fprintf(os.Stderr, "running %q, %s, lag %s\n", nd.name, sh, l)
				r := b.runRow(ctx, cp, admin, sh, nd, l)
				fmt.Fprintln(os.Stderr, "  ", r.summary())
				results = append(results, r)
			}
		}
	}
	fmt.Println(decisionsReport(b, lag, results))
	return nil
}
