package soak

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Metrics is one scrape of a Prometheus text exposition: each sample by its full series name as
// written (name{labels}), and the histograms' buckets by metric name.
type Metrics struct {
	samples map[string]float64
	buckets map[string][]bucket // name (without _bucket) -> buckets, summed over label sets
}

type bucket struct {
	le    float64
	count float64
}

// ParseMetrics reads the text exposition format (the /metrics endpoint's).
func ParseMetrics(r io.Reader) (Metrics, error) {
	m := Metrics{samples: map[string]float64{}, buckets: map[string][]bucket{}}
	byLe := map[string]map[float64]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		series, valueText := line[:i], line[i+1:]
		value, err := strconv.ParseFloat(valueText, 64)
		if err != nil {
			continue
		}
		m.samples[series] = value
		name, labels, _ := strings.Cut(series, "{")
		if base, ok := strings.CutSuffix(name, "_bucket"); ok {
			le, ok := labelValue(labels, "le")
			if !ok {
				continue
			}
			bound, err := strconv.ParseFloat(le, 64)
			if err != nil {
				continue
			}
			if byLe[base] == nil {
				byLe[base] = map[float64]float64{}
			}
			byLe[base][bound] += value
		}
	}
	for name, counts := range byLe {
		for le, c := range counts {
			m.buckets[name] = append(m.buckets[name], bucket{le, c})
		}
		sort.Slice(m.buckets[name], func(i, j int) bool { return m.buckets[name][i].le < m.buckets[name][j].le })
	}
	return m, sc.Err()
}

func labelValue(labels, key string) (string, bool) {
	for _, part := range strings.Split(strings.TrimSuffix(labels, "}"), ",") {
		k, v, ok := strings.Cut(part, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.Trim(v, `"`), true
		}
	}
	return "", false
}

// Sum adds the samples of a metric over all its label sets (the name exactly, no suffixes).
func (m Metrics) Sum(name string) float64 {
	sum := 0.0
	for series, v := range m.samples {
		if n, _, _ := strings.Cut(series, "{"); n == name {
			sum += v
		}
	}
	return sum
}

// Quantile estimates the q-quantile of a histogram over what it counted since before (a scrape
// taken earlier; the zero Metrics for everything): the upper bound of the bucket the quantile
// falls in, +Inf past the last bound.
func (m Metrics) Quantile(name string, q float64, before Metrics) float64 {
	now := m.buckets[name]
	prev := map[float64]float64{}
	for _, b := range before.buckets[name] {
		prev[b.le] = b.count
	}
	if len(now) == 0 {
		return math.NaN()
	}
	total := now[len(now)-1].count - prev[now[len(now)-1].le]
	if total <= 0 {
		return math.NaN()
	}
	for _, b := range now {
		if b.count-prev[b.le] >= q*total {
			return b.le
		}
	}
	return math.Inf(1)
}
