package chartcheck

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// The operator's series that belong to one BrokerCluster: their namespace label is the
// cluster's, not the operator's.
var perClusterMetrics = []string{
	"broker_operator_cluster_condition",
	"broker_operator_cluster_next_maintenance_window_timestamp_seconds",
	"broker_operator_ghost_brokers",
	"broker_operator_certificate_expiry_timestamp_seconds",
}

// rule returns the alert named name, rendered with vals.
func rule(t *testing.T, vals map[string]any, name string) map[string]any {
	t.Helper()
	for _, r := range alertRules(t, vals) {
		if r["alert"] == name {
			return r
		}
	}
	t.Fatalf("no alert %s", name)
	return nil
}

func parseExpr(t *testing.T, r map[string]any) parser.Expr {
	t.Helper()
	expr, err := parser.NewParser(parser.Options{}).ParseExpr(r["expr"].(string))
	if err != nil {
		t.Fatalf("%s: %v", r["alert"], err)
	}
	return expr
}

// selector writes a selector as metric{label="value",...}, its matchers sorted, job left out.
func selector(ms []*labels.Matcher) string {
	var name string
	var rest []string
	for _, m := range ms {
		switch m.Name {
		case labels.MetricName:
			name = m.Value
		case "job":
		default:
			rest = append(rest, m.String())
		}
	}
	slices.Sort(rest)
	return name + "{" + strings.Join(rest, ",") + "}"
}

// selectors lists the selectors of expr as selector writes them: those that decide whether the
// alert fires, and those on the right of an unless, which only keep it from firing.
func selectors(expr parser.Expr) (fires, unless []string) {
	var walk func(e parser.Expr, excluded bool)
	walk = func(e parser.Expr, excluded bool) {
		if b, ok := e.(*parser.BinaryExpr); ok {
			walk(b.LHS, excluded)
			walk(b.RHS, excluded || b.Op == parser.LUNLESS)
			return
		}
		if vs, ok := e.(*parser.VectorSelector); ok {
			if excluded {
				unless = append(unless, selector(vs.LabelMatchers))
			} else {
				fires = append(fires, selector(vs.LabelMatchers))
			}
			return
		}
		for _, c := range parser.Children(e) {
			if ce, ok := c.(parser.Expr); ok {
				walk(ce, excluded)
			}
		}
	}
	walk(expr, false)
	slices.Sort(fires)
	slices.Sort(unless)
	return fires, unless
}

// outputLabels are the labels the alert's top aggregation keeps.
func outputLabels(t *testing.T, expr parser.Expr) []string {
	t.Helper()
	for {
		switch e := expr.(type) {
		case *parser.AggregateExpr:
			if e.Without {
				t.Fatalf("%s aggregates without labels; want by", e)
			}
			return slices.Sorted(slices.Values(e.Grouping))
		case *parser.BinaryExpr:
			expr = e.LHS
		case *parser.ParenExpr:
			expr = e.Expr
		default:
			t.Fatalf("no aggregation on the left of %s", expr)
		}
	}
}

// BrokerClusterDegraded fires on the Degraded condition, whatever its reason, and names the
// reason: not on ghost brokers, which have an alert of their own.
func TestBrokerClusterDegradedFiresOnTheDegradedCondition(t *testing.T) {
	r := rule(t, prometheusRuleOn, "BrokerClusterDegraded")
	expr := parseExpr(t, r)
	fires, unless := selectors(expr)
	want := []string{`broker_operator_cluster_condition{status="True",type="Degraded"}`}
	if !slices.Equal(fires, want) || len(unless) != 0 {
		t.Errorf("BrokerClusterDegraded reads %v (unless %v), want only %v", fires, unless, want)
	}
	if got := outputLabels(t, expr); !slices.Equal(got, []string{"name", "namespace", "reason"}) {
		t.Errorf("BrokerClusterDegraded keeps labels %v, want namespace, name and reason", got)
	}
	if r["for"] != "15m" {
		t.Errorf("BrokerClusterDegraded: for %v, want the default degradedFor 15m", r["for"])
	}
	for _, a := range []string{"summary", "description"} {
		if s, _ := dig(r, "annotations", a).(string); !strings.Contains(s, "$labels.reason") {
			t.Errorf("BrokerClusterDegraded's %s does not name the reason: %q", a, s)
		}
	}

	ghosts := rule(t, prometheusRuleOn, "BrokerClusterGhostBrokers")
	if fires, _ := selectors(parseExpr(t, ghosts)); !slices.Equal(fires, []string{"broker_operator_ghost_brokers{}"}) {
		t.Errorf("BrokerClusterGhostBrokers reads %v, want broker_operator_ghost_brokers", fires)
	}
}

// BrokerClusterNotProgressing fires on Ready False or Restarting True, by condition, and never
// for a cluster that is paused or whose next step waits for a maintenance window.
func TestBrokerClusterNotProgressingLeavesOutPausesAndWindows(t *testing.T) {
	r := rule(t, prometheusRuleOn, "BrokerClusterNotProgressing")
	expr := parseExpr(t, r)
	fires, unless := selectors(expr)
	wantFires := []string{
		`broker_operator_cluster_condition{status="False",type="Ready"}`,
		`broker_operator_cluster_condition{status="True",type="Restarting"}`,
	}
	wantUnless := []string{
		`broker_operator_cluster_condition{status="True",type="Paused"}`,
		`broker_operator_cluster_next_maintenance_window_timestamp_seconds{}`,
	}
	if !slices.Equal(fires, wantFires) || !slices.Equal(unless, wantUnless) {
		t.Errorf("BrokerClusterNotProgressing fires on %v unless %v; want %v unless %v", fires, unless, wantFires, wantUnless)
	}
	if got := outputLabels(t, expr); !slices.Equal(got, []string{"name", "namespace", "type"}) {
		t.Errorf("BrokerClusterNotProgressing keeps labels %v, want namespace, name and type", got)
	}
	if r["for"] != "3h" {
		t.Errorf("BrokerClusterNotProgressing: for %v, want the default notProgressingFor 3h", r["for"])
	}
}

// The thresholds of the condition alerts are the chart's values.
func TestClusterConditionAlertThresholdsAreValues(t *testing.T) {
	vals := map[string]any{"metrics": map[string]any{"prometheusRule": map[string]any{
		"enabled": true, "degradedFor": "40m", "notProgressingFor": "8h", "clusterUnhealthyFor": "25m",
	}}}
	for alert, want := range map[string]string{"BrokerClusterDegraded": "40m", "BrokerClusterNotProgressing": "8h", "BrokerClusterGhostBrokers": "25m"} {
		r := rule(t, vals, alert)
		if r["for"] != want {
			t.Errorf("%s: for %v, want %s", alert, r["for"], want)
		}
		if s, _ := dig(r, "annotations", "summary").(string); alert != "BrokerClusterGhostBrokers" && !strings.Contains(s, want) {
			t.Errorf("%s: summary %q does not say %s", alert, s, want)
		}
	}
}

// A per-cluster series carries the BrokerCluster's namespace: the ServiceMonitor keeps it
// (honorLabels), and the alerts select such series by job alone, so that clusters outside the
// operator's namespace count.
func TestPerClusterSeriesKeepTheirNamespace(t *testing.T) {
	objs, err := renderChart(map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, sm := range byKind(objs, "ServiceMonitor") {
		for _, ep := range dig(sm, "spec", "endpoints").([]any) {
			if ep.(map[string]any)["honorLabels"] != true {
				t.Errorf("ServiceMonitor endpoint %v does not honor the series' labels", ep)
			}
		}
	}
	for _, r := range alertRules(t, prometheusRuleOn) {
		for _, sel := range parser.ExtractSelectors(parseExpr(t, r)) {
			metric := ""
			for _, m := range sel {
				if m.Name == labels.MetricName {
					metric = m.Value
				}
			}
			if !slices.Contains(perClusterMetrics, metric) {
				continue
			}
			if slices.ContainsFunc(sel, func(m *labels.Matcher) bool { return m.Name == "namespace" }) {
				t.Errorf("%s selects %s by namespace: it would see only the clusters in the release namespace", r["alert"], metric)
			}
		}
	}
}

// Reasons of step's conditions (pkg/controller/internal/step/status.go) that the Degraded
// condition takes, and those it does not. A new reason there fails the test until it is put in
// one list, and a Degraded one in the runbook.
var (
	degradedReasons = []string{
		"AdminAPIUnavailable", "AdminAPIUnauthorized", "AdminAPIForbidden", "AdminAPITLSRefused",
		"AdminAPISecretMissing", "AdminAPISecretInvalid", "AdminAPISecretForbidden",
		"BrokerIDUnknown", "ClusterUnhealthy", "BrokerPodCannotStart", "BrokerRecoveryStalled",
		"BrokerPodStuckTerminating", "DrainStalled", "UnsupportedVersionChange", "SASLWaitsForSuperuser",
		"ScaleDownWouldNotFit", "InvalidMaintenanceWindow",
	}
	otherReasons = []string{
		"AllBrokersReady", "BrokersNotReady", "ScalingUp", "ScalingDown", "Steady", "AsExpected",
		"RollingOut", "AllUpdated", "GhostBrokersFound", "NoGhostBrokers",
	}
)

// The runbook of BrokerClusterDegraded says, for each reason the Degraded condition can have,
// what it means and what to do: one row naming it.
func TestEveryDegradedReasonHasARunbookRow(t *testing.T) {
	src, err := os.ReadFile("../../pkg/controller/internal/step/status.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*Reason\w+\s*=\s*"(\w+)"`).FindAllStringSubmatch(string(src), -1) {
		if !slices.Contains(degradedReasons, m[1]) && !slices.Contains(otherReasons, m[1]) {
			t.Errorf("reason %s of step/status.go is in neither list of this test", m[1])
		}
	}
	section := alertSections(t)["brokerclusterdegraded"]
	for _, reason := range degradedReasons {
		if !strings.Contains(section, fmt.Sprintf("\n| `%s` |", reason)) {
			t.Errorf("%s: the BrokerClusterDegraded section has no row for reason %s", alertsDoc, reason)
		}
	}
}
