package soak

import (
	"math"
	"strings"
	"testing"
)

const scrape1 = `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 5.0e+07
workqueue_depth{name="brokerclusters"} 3
workqueue_depth{name="other"} 1
workqueue_work_duration_seconds_bucket{name="brokerclusters",le="0.001"} 10
workqueue_work_duration_seconds_bucket{name="brokerclusters",le="0.01"} 50
workqueue_work_duration_seconds_bucket{name="brokerclusters",le="0.1"} 99
workqueue_work_duration_seconds_bucket{name="brokerclusters",le="+Inf"} 100
`

const scrape2 = `workqueue_work_duration_seconds_bucket{name="brokerclusters",le="0.001"} 10
workqueue_work_duration_seconds_bucket{name="brokerclusters",le="0.01"} 50
workqueue_work_duration_seconds_bucket{name="brokerclusters",le="0.1"} 199
workqueue_work_duration_seconds_bucket{name="brokerclusters",le="+Inf"} 200
`

func TestParseMetrics(t *testing.T) {
	m1, err := ParseMetrics(strings.NewReader(scrape1))
	if err != nil {
		t.Fatal(err)
	}
	if got := m1.Sum("process_resident_memory_bytes"); got != 5e7 {
		t.Errorf("RSS %v, want 5e7", got)
	}
	if got := m1.Sum("workqueue_depth"); got != 4 {
		t.Errorf("depth %v, want 4 (summed over queues)", got)
	}
	if got := m1.Quantile("workqueue_work_duration_seconds", 0.5, Metrics{}); got != 0.01 {
		t.Errorf("p50 %v, want 0.01", got)
	}
	if got := m1.Quantile("workqueue_work_duration_seconds", 0.995, Metrics{}); !math.IsInf(got, 1) {
		t.Errorf("p99.5 %v, want +Inf", got)
	}
	m2, err := ParseMetrics(strings.NewReader(scrape2))
	if err != nil {
		t.Fatal(err)
	}
	// Between the scrapes, 100 more reconciles, all between 10 and 100 ms.
	if got := m2.Quantile("workqueue_work_duration_seconds", 0.5, m1); got != 0.1 {
		t.Errorf("p50 since the first scrape %v, want 0.1", got)
	}
	if got := m1.Quantile("workqueue_work_duration_seconds", 0.5, m1); !math.IsNaN(got) {
		t.Errorf("p50 of nothing %v, want NaN", got)
	}
}
