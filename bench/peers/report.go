package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"
)

// report renders the results as a markdown table, with each strategy's p50 as a ratio to the
// plain lister's and to pkg/writeback's at the same lag.
func report(w workload, namespaces int, lag harness.Lag, results []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d ConfigMaps in %d namespaces, each patched %d times and read back at once; lagged rows delay every watch stream by %s.\n",
		w.objects, namespaces, w.writes, lag)
	fmt.Fprintf(&b, "%s, %s/%s, %d CPUs.\n\n", versions(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	b.WriteString("| strategy | watch lag | reads | stale | failed | p50 | p99 | max | API requests/read | p50 / lister | p50 / writeback |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range results {
		lister, wb := find(results, "informer lister", r.lag), find(results, "pkg/writeback", r.lag)
		lagText := "none"
		if !r.lag.IsZero() {
			lagText = r.lag.String()
		}
		note := ""
		if r.err != nil {
			note = " (" + r.err.Error() + ")"
		}
		fmt.Fprintf(&b, "| %s%s | %s | %d | %d | %d | %s | %s | %s | %.2f | %s | %s |\n",
			r.strategy, note, lagText, r.reads, r.stale, r.failed,
			dur(r.percentile(0.5)), dur(r.percentile(0.99)), dur(r.percentile(1)),
			float64(r.requests)/float64(max(r.reads, 1)),
			ratio(r.percentile(0.5), lister), ratio(r.percentile(0.5), wb))
	}
	return b.String()
}

func find(results []result, strategy string, lag harness.Lag) time.Duration {
	for _, r := range results {
		if r.strategy == strategy && r.lag == lag && len(r.lat) > 0 {
			return r.percentile(0.5)
		}
	}
	return 0
}

func ratio(d, base time.Duration) string {
	if base <= 0 || d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(d)/float64(base))
}

func dur(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
}
