package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
)

// The Grafana dashboard's source; hack/chartcheck holds deploy/dashboards to the same bytes.
const dashboardPath = "../../charts/broker-operator/dashboards/broker-operator.json"

// Every metric the dashboard queries is in the operator's /metrics output as soon as it serves,
// before any BrokerCluster exists, so no panel ever shows "no data" for a misspelt or missing
// metric.
func TestDashboardQueriesOnlyExportedMetrics(t *testing.T) {
	queried := dashboardMetrics(t)
	if len(queried) < 10 {
		t.Fatalf("found only %d metrics in the dashboard's queries: %v; is the parser still right?", len(queried), queried)
	}

	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	op, err := newOperator(testOptions(sim), clients{kube: kubefake.NewClientset(), broker: brokerfake.NewClientset()}, "replica-a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- op.run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	select {
	case <-op.ready:
	case err := <-done:
		t.Fatalf("run ended before serving: %v", err)
	}
	code, body := get(t, "http://"+op.metrics.listener.Addr().String()+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d: %s", code, body)
	}
	exported := exportedSeries(t, body)
	for _, name := range queried {
		if !exported[name] {
			t.Errorf("the dashboard queries %s, which /metrics does not export", name)
		}
	}
}

// dashboardMetrics returns the metric names in every panel query and template variable.
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	var names []string
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			found := promQLMetrics(target.Expr)
			if len(found) == 0 {
				t.Errorf("panel %q: no metric found in %q", p.Title, target.Expr)
			}
			names = append(names, found...)
		}
	}
	for _, v := range dash.Templating.List {
		if m := labelValuesQuery.FindStringSubmatch(v.Definition); m != nil {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

var (
	labelValuesQuery = regexp.MustCompile(`^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`)

	// What in a PromQL expression is not a metric name: strings, label matchers, range and
	// subquery durations, and the label lists of grouping and vector matching.
	promQLString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promQLMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promQLRange    = regexp.MustCompile(`\[[^\]]*\]`)
	promQLGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promQLIdent    = regexp.MustCompile(`\b[a-zA-Z_][a-zA-Z0-9_:]*(\s*\()?`)
	promQLKeywords = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan"}
)

// promQLMetrics returns the metric names an expression selects: the identifiers left once
// strings, matchers, durations and label lists are gone that are neither function calls nor
// keywords. It is enough for the dashboard's queries, not a PromQL parser.
func promQLMetrics(expr string) []string {
	expr = promQLString.ReplaceAllString(expr, `""`)
	expr = promQLMatchers.ReplaceAllString(expr, " ")
	expr = promQLRange.ReplaceAllString(expr, " ")
	expr = promQLGrouping.ReplaceAllString(expr, " ")
	var out []string
	for _, m := range promQLIdent.FindAllStringSubmatch(expr, -1) {
		ident := strings.TrimRight(strings.TrimSuffix(strings.TrimSpace(m[0]), "("), " ")
		if m[1] != "" || slices.Contains(promQLKeywords, strings.ToLower(ident)) {
			continue // a function call or a keyword
		}
		out = append(out, ident)
	}
	return out
}

func TestPromQLMetrics(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (kind) (rate(broker_operator_decisions_total{job=~"$job"}[$__rate_interval]))`:                                       {"broker_operator_decisions_total"},
		`histogram_quantile(0.99, sum by (le) (rate(writeback_observation_lag_seconds_bucket{job=~"a{b}"}[5m])))`:                    {"writeback_observation_lag_seconds_bucket"},
		`sum(workqueue_depth) / ignoring(name) group_left sum(up{job="x"} offset 5m) or vector(1e3)`:                                 {"workqueue_depth", "up"},
		`sum by (operation, result) (rate(broker_operator_admin_requests_total{result!="success"}[1m])) > bool 0 unless on() absent`: {"broker_operator_admin_requests_total", "absent"},
	} {
		if got := promQLMetrics(expr); !slices.Equal(got, want) {
			t.Errorf("promQLMetrics(%q) = %v, want %v", expr, got, want)
		}
	}
}

// exportedSeries parses a text exposition and returns the names of its series, with the
// _bucket, _sum and _count series of histograms and summaries.
func exportedSeries(t *testing.T, body string) map[string]bool {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]bool{}
	for name, f := range families {
		if len(f.GetMetric()) == 0 {
			continue
		}
		out[name] = true
		switch f.GetType().String() {
		case "HISTOGRAM":
			out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
		case "SUMMARY":
			out[name+"_sum"], out[name+"_count"] = true, true
		}
	}
	return out
}
