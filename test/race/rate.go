package race

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"
)

// The seed reports how often a run failed (1-2 % of its clusters ended with a broker
// decommissioned twice), which one run's counts cannot give: a rate table adds up many runs of
// each row, each with its own seed, and gives the rate with its interval.

// RateHeader describes a rate run: one command, many seeds.
type RateHeader struct {
	Command  string
	Workload string
	// Seeds are the runs' seeds, in order; a run is replayed alone with -runs=1 and its seed.
	Seeds    []uint64
	Clusters int
	// PodStop is how long a deleted pod took to stop (-pod-stop); zero: at once.
	PodStop harness.Lag
	Started time.Time
	Took    time.Duration
}

// WriteRateTable writes, per row, what its runs add up to: the clusters that had a broker
// decommissioned twice (the seed's failed run) with a 95 % interval on their rate, the runs
// that had one, the decommission calls doubled, stale reads per run, history violations and
// stuck clusters. runs holds each run's results, every run with the same rows in the same
// order.
func WriteRateTable(w io.Writer, h RateHeader, runs [][]Result) error {
	var b strings.Builder
	seeds := make([]string, len(h.Seeds))
	for i, s := range h.Seeds {
		seeds[i] = fmt.Sprint(s)
	}
	fmt.Fprintf(&b, "Command (%d runs, run %s, took %s):\n\n```sh\n%s\n```\n\n", len(runs), h.Started.UTC().Format("2006-01-02 15:04 MST"), h.Took.Round(time.Second), h.Command)
	fmt.Fprintf(&b, "Seeds, one per run: %s. Workload %s, %d clusters per run%s.\n\n", strings.Join(seeds, ", "), h.Workload, h.Clusters, podStopNote(h.PodStop))
	b.WriteString("| row | runs | clusters with a broker decommissioned twice | rate per cluster (95 % interval) | runs with one | decommission calls doubled | stale reads per run (min / median / max) | history violations | stuck clusters |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	if len(runs) == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	for i, first := range runs[0] {
		var clusters, failed, failedRuns, doubled, calls, violations, stuck int
		var stale []int
		for j, run := range runs {
			if i >= len(run) || run[i].Row != first.Row {
				return fmt.Errorf("run %d does not have row %s at %d", j, first.Row.Name(), i)
			}
			r := run[i]
			clusters += r.Clusters
			failed += r.ClustersWithDouble
			if r.ClustersWithDouble > 0 {
				failedRuns++
			}
			doubled += r.DoubleDecommissions
			calls += r.DecommissionCalls()
			violations += r.HistoryViolations
			stuck += r.Stuck
			stale = append(stale, r.Stats.TotalStaleReads())
		}
		slices.Sort(stale)
		lo, hi := Wilson(failed, clusters)
		fmt.Fprintf(&b, "| %s | %d | %d of %d | %.1f %% (%.1f-%.1f %%) | %d of %d | %d of %d | %d / %d / %d | %d | %d |\n",
			first.Row.Name(), len(runs), failed, clusters, 100*float64(failed)/float64(max(clusters, 1)), 100*lo, 100*hi,
			failedRuns, len(runs), doubled, calls, stale[0], stale[(len(stale)-1)/2], stale[len(stale)-1], violations, stuck)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DecommissionCalls is how many decommission calls the simulator judged in the row, as the
// first safety rule counted them (0 when the row judged none).
func (r Result) DecommissionCalls() int {
	if len(r.Safety) == 0 {
		return 0
	}
	return r.Safety[0].Simulator.Judged
}

// Wilson is the 95 % Wilson score interval of a rate of k in n, which stays inside 0..1 and
// gives a zero count an upper bound (about 3.8/n), where the normal approximation gives none.
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	const z = 1.959964 // the normal quantile of 0.975
	p, nf := float64(k)/float64(n), float64(n)
	denominator := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / denominator
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / denominator
	return max(0, center-half), min(1, center+half)
}
