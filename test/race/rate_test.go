package race

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"
)

func TestWilsonInterval(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 300, 0, 0.012643},        // no failure: the upper bound is z²/(n+z²)
		{5, 300, 0.007139, 0.038415}, // 1.7 %, the seed's rate
		{300, 300, 0.987357, 1},      // every cluster failed
		{0, 0, 0, 1},                 // nothing run: nothing known
	} {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 1e-5 || math.Abs(hi-c.hi) > 1e-5 {
			t.Errorf("Wilson(%d, %d) = %.6f-%.6f, want %.6f-%.6f", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// The rate table adds each row up over the runs: clusters and runs with a broker decommissioned
// twice, the rate with its interval, and stale reads per run as min / median / max.
func TestWriteRateTableAddsUpEachRowOverTheRuns(t *testing.T) {
	run := func(staleCache, failedClusters, doubles int) []Result {
		decommissions := []harness.Rule{{Name: "double decommissions", Simulator: harness.Tally{Judged: 150 + doubles, Violations: doubles}}}
		return []Result{
			{Row: Row{Strategy: "cache"}, Clusters: 50, ClustersWithDouble: failedClusters, DoubleDecommissions: doubles, HistoryViolations: staleCache,
				Stats: Stats{StaleReads: map[string]int{"brokerclusters": staleCache}}, Safety: decommissions},
			{Row: Row{Strategy: "writeback"}, Clusters: 50, Safety: []harness.Rule{{Name: "double decommissions", Simulator: harness.Tally{Judged: 150}}}},
		}
	}
	var b strings.Builder
	err := WriteRateTable(&b, RateHeader{Command: "go test -tags e2e ./test/race -args -runs=3", Workload: WorkloadPools, Seeds: []uint64{7, 8, 9}, Clusters: 50, PodStop: harness.Lag{Max: 5 * time.Second}},
		[][]Result{run(40, 2, 3), run(10, 0, 0), run(25, 1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"-runs=3", "Seeds, one per run: 7, 8, 9. Workload pools, 50 clusters per run, deleted pods stopping in 0s-5s.",
		"| cache | 3 | 3 of 150 | 2.0 % (0.7-5.7 %) | 2 of 3 | 4 of 454 | 10 / 25 / 40 | 75 | 0 |",
		"| writeback | 3 | 0 of 150 | 0.0 % (0.0-2.5 %) | 0 of 3 | 0 of 450 | 0 / 0 / 0 | 0 | 0 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rate table lacks %q:\n%s", want, out)
		}
	}

	mixed := [][]Result{run(1, 0, 0), run(1, 0, 0)[1:]}
	if err := WriteRateTable(&strings.Builder{}, RateHeader{}, mixed); err == nil {
		t.Error("runs with different rows: want an error")
	}
}
