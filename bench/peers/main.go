// Command peers measures, on a real kube-apiserver, what each way of reading a controller's own
// writes costs: a plain informer lister, client-go's MutationCache, controller-runtime's cache
// with and without EnableReadYourWritesConsistency, an uncached GET, and pkg/writeback.
//
// Each strategy gets its own clients. It patches each of N ConfigMaps (spread over several
// namespaces) W times and reads each one back at once. A read is stale when it returns an older
// resourceVersion than the patch answered with. Read latency is measured from the end of the
// patch to the end of the read; API requests per read are the requests the strategy's clients
// sent during its reads. Every row runs once with the watch delivered as the apiserver sends
// it, and once with each watch stream delayed by -lag (test/race's lag injection), which is
// what a busy apiserver or network does to a controller.
//
// With -workload decisions it runs each strategy as a whole controller making dependent
// decisions instead (decisions.go): M objects that each go through K steps, one sync per step,
// where acting on a stale read repeats a step. ConsistencyStore, kube-controller-manager's way
// since v1.36, joins the strategies there.
//
//	make bench-peers
//	go run . -objects 90 -writes 10 -namespaces 3 -lag 5ms-50ms
//	go run . -workload decisions -shapes 1x6,40x6 -cross-kind 1x6,40x6 -workers 2 -lag 5ms-50ms
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/race"
)

func main() {
	objects := flag.Int("objects", 90, "ConfigMaps patched by each strategy")
	writes := flag.Int("writes", 10, "patches of each ConfigMap, each read back at once")
	namespaces := flag.Int("namespaces", 3, "namespaces the ConfigMaps are spread over")
	lagFlag := flag.String("lag", "5ms-50ms", "watch delay of the lagged rows (MIN-MAX)")
	readTimeout := flag.Duration("read-timeout", 2*time.Second, "a read that takes longer fails")
	only := flag.String("only", "", "run only the strategies whose name contains this")
	workloadName := flag.String("workload", "reads", "reads: patch and read back; decisions: a controller making dependent decisions")
	shapesFlag := flag.String("shapes", "1x6,40x6", "decisions: OBJECTSxSTEPS shapes, each step recorded in the watched ConfigMap")
	crossFlag := flag.String("cross-kind", "1x6,40x6", "decisions: shapes whose steps are recorded in Secrets the controller does not watch")
	workers := flag.Int("workers", 2, "decisions: controller workers")
	rowTimeout := flag.Duration("row-timeout", 60*time.Second, "decisions: a strategy that has not finished a shape by then is stopped")
	klog.InitFlags(nil)
	flag.Parse()

	lag, err := harness.ParseLag(*lagFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *workloadName != "reads" && *workloadName != "decisions" {
		fmt.Fprintf(os.Stderr, "-workload %q: want reads or decisions\n", *workloadName)
		os.Exit(2)
	}
	if *workloadName == "decisions" {
		shapes, err := parseShapes(*shapesFlag, false)
		if err == nil {
			var cross []shape
			cross, err = parseShapes(*crossFlag, true)
			shapes = append(shapes, cross...)
		}
		if err == nil {
			err = runDecisions(ctx, &decisionsBench{workers: max(*workers, 1), rowTimeout: *rowTimeout}, shapes, lag, *only)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	w := workload{objects: *objects, writes: *writes, readTimeout: *readTimeout}
	if err := run(ctx, w, *namespaces, lag, *only); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w workload, namespaceCount int, lag harness.Lag, only string) error {
	cp, err := framework.Start(ctx, framework.Options{Logf: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }})
	if err != nil {
		return err
	}
	defer cp.Stop()
	admin, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		return err
	}
	for i := range namespaceCount {
		ns := fmt.Sprintf("peers-%d", i)
		w.namespaces = append(w.namespaces, ns)
		if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	for i := range w.objects {
		ns, name := w.object(i)
		if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, metav1.CreateOptions{}); err != nil {
			return err
		}
	}

	var results []result
	for _, l := range []harness.Lag{{}, lag} {
		for _, s := range strategies {
			if only != "" && !strings.Contains(s.name, only) {
				continue
			}
			fmt.Fprintf(os.Stderr, "running %q with lag %s\n", s.name, l)
			r := w.measure(ctx, cp, s, l)
			fmt.Fprintln(os.Stderr, "  ", r.summary())
			results = append(results, r)
		}
	}
	fmt.Println(report(w, namespaceCount, lag, results))
	return nil
}

type workload struct {
	objects, writes int
	namespaces      []string
	readTimeout     time.Duration
}

func (w workload) object(i int) (namespace, name string) {
	return w.namespaces[i%len(w.namespaces)], fmt.Sprintf("peer-%03d", i)
}

type result struct {
	strategy string
	lag      harness.Lag
	reads    int
	stale    int
	failed   int
	err      error
	lat      []time.Duration
	requests int
}

// maxFailures ends a row early: a strategy whose reads keep failing says so after this many.
const maxFailures = 10

func (w workload) measure(ctx context.Context, cp *framework.ControlPlane, s namedStrategy, lag harness.Lag) result {
	r := result{strategy: s.name, lag: lag}
	rec := race.NewRecorder(race.RecorderOptions{Lag: lag, Seed: 1})
	cfg := cp.AdminConfig()
	cfg.QPS, cfg.Burst = 5000, 5000 // client-side throttling would measure the limiter, not the strategy
	cfg.WrapTransport = rec.Wrap
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := s.new()
	if r.err = st.start(ctx, cfg, w.namespaces); r.err != nil {
		return r
	}
	for round := range w.writes {
		for i := range w.objects {
			ns, name := w.object(i)
			patch := fmt.Appendf(nil, `{"metadata":{"annotations":{"bench/round":"%s-%d"}}}`, strings.ReplaceAll(s.name, " ", "_"), round)
			written, err := st.patch(ctx, ns, name, patch)
			if err != nil {
				r.err = fmt.Errorf("patch %s/%s: %w", ns, name, err)
				return r
			}
			before := harness.Total(rec.Requests())
			readCtx, cancelRead := context.WithTimeout(ctx, w.readTimeout)
			start := time.Now()
			got, err := st.read(readCtx, ns, name)
			took := time.Since(start)
			cancelRead()
			r.requests += harness.Total(rec.Requests()) - before
			r.reads++
			if err != nil {
				r.failed++
				if r.failed >= maxFailures {
					r.err = fmt.Errorf("stopped after %d failed reads, the last: %w", r.failed, err)
					return r
				}
				continue
			}
			r.lat = append(r.lat, took)
			if c, err := resourceversion.CompareResourceVersion(got, written); got == "" || err != nil || c < 0 {
				r.stale++
			}
		}
	}
	return r
}

func (r result) percentile(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	s := slices.Clone(r.lat)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func (r result) summary() string {
	if r.err != nil && r.reads == 0 {
		return "error: " + r.err.Error()
	}
	s := fmt.Sprintf("%d reads, %d stale, %d failed, p50 %s, p99 %s, max %s, %.2f requests/read",
		r.reads, r.stale, r.failed, r.percentile(0.5), r.percentile(0.99), r.percentile(1), float64(r.requests)/float64(max(r.reads, 1)))
	if r.err != nil {
		s += " (" + r.err.Error() + ")"
	}
	return s
}

func versions() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return runtime.Version()
	}
	var parts []string
	for _, d := range info.Deps {
		switch d.Path {
		case "k8s.io/client-go", "sigs.k8s.io/controller-runtime":
			parts = append(parts, d.Path+" "+d.Version)
		}
	}
	return runtime.Version() + ", " + strings.Join(parts, ", ")
}
