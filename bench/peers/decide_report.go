package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"
)

func (r decisionResult) percentile(p float64) time.Duration {
	return (result{lat: r.latencies}).percentile(p)
}

func (r decisionResult) perStep(n int) float64 { return float64(n) / float64(r.stepCount()) }

func (r decisionResult) summary() string {
	s := fmt.Sprintf("finished in %s, %d actions, %d wrong, %d turned away (longest retry delay %s), %d waited, %d idle, %.2f requests/step, CPU %s/step, write→next p50 %s p99 %s",
		dur(r.finished), r.actions, r.wrong, r.turned, dur(r.longestRetry), r.waits, r.idles, r.perStep(r.requests),
		dur(r.cpu/time.Duration(r.stepCount())), dur(r.percentile(0.5)), dur(r.percentile(0.99)))
	if r.err != nil {
		s += " (" + r.err.Error() + ")"
	}
	return s
}

// decisionsReport renders one markdown table per shape, each strategy beside pkg/writeback at
// the same lag.
func decisionsReport(b *decisionsBench, lag harness.Lag, results []decisionResult) string {
	var out strings.Builder
	fmt.Fprintf(&out, "Dependent decisions: each object goes through its steps one sync at a time, %d workers, default controller rate limiter; lagged rows delay every watch stream by %s.\n",
		b.workers, lag)
	fmt.Fprintf(&out, "%s, %s/%s, %d CPUs.\n", versions(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	var shapes []shape
	for _, r := range results {
		if !slices.Contains(shapes, r.shape) {
			shapes = append(shapes, r.shape)
		}
	}
	for _, sh := range shapes {
		fmt.Fprintf(&out, "\n%s:\n\n", sh)
		out.WriteString("| strategy | watch lag | finished in | / writeback | wrong decisions (of actions) | turned away | longest retry delay | waited | idle syncs | API requests/step | CPU/step | write→next action p50 | p99 | p50 / writeback |\n")
		out.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, r := range results {
			if r.shape == sh {
				out.WriteString(decisionRow(r, findDecision(results, "pkg/writeback", sh, r.lag)))
			}
		}
	}
	return out.String()
}

func decisionRow(r decisionResult, wb *decisionResult) string {
	lagText := "none"
	if !r.lag.IsZero() {
		lagText = r.lag.String()
	}
	name := r.strategy
	if r.err != nil {
		name += " (" + r.err.Error() + ")"
	}
	var finishedRatio, p50Ratio string = "-", "-"
	if wb != nil {
		finishedRatio, p50Ratio = ratio(r.finished, wb.finished), ratio(r.percentile(0.5), wb.percentile(0.5))
	}
	wrong := fmt.Sprintf("%d (%.0f %%)", r.wrong, 100*float64(r.wrong)/float64(max(r.actions, 1)))
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %d | %s | %d | %d | %.2f | %s | %s | %s | %s |\n",
		name, lagText, dur(r.finished), finishedRatio, wrong, r.turned, dur(r.longestRetry), r.waits, r.idles,
		r.perStep(r.requests), dur(r.cpu/time.Duration(r.stepCount())),
		dur(r.percentile(0.5)), dur(r.percentile(0.99)), p50Ratio)
}

func findDecision(results []decisionResult, strategy string, sh shape, lag harness.Lag) *decisionResult {
	for i, r := range results {
		if r.strategy == strategy && r.shape == sh && r.lag == lag && r.err == nil {
			return &results[i]
		}
	}
	return nil
}
