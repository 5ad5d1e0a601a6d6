package chartcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// alertsDoc holds one section per alert, the target of each runbook_url.
const alertsDoc = "../../docs/alerts.md"

// prometheusRuleOn renders the PrometheusRule with the chart's defaults otherwise.
var prometheusRuleOn = map[string]any{"metrics": map[string]any{"prometheusRule": map[string]any{"enabled": true}}}

// allAlertsOn renders the PrometheusRule with the broker alerts too.
var allAlertsOn = map[string]any{
	"metrics":          map[string]any{"prometheusRule": map[string]any{"enabled": true}},
	"brokerMonitoring": map[string]any{"enabled": true},
}

// Each group's alerts read one job: the operator's own metrics, or the brokers' as the
// brokers' PodMonitor scrapes them (broker_monitoring_test.go).
var groupJobs = map[string]string{
	"broker-operator":              releaseName + "-metrics",
	"broker-operator-certificates": releaseName + "-metrics",
	"brokers":                      brokersJob,
}

// alertRules renders the chart with vals and returns the PrometheusRule's rules.
func alertRules(t *testing.T, vals map[string]any) []map[string]any {
	t.Helper()
	var rules []map[string]any
	for _, g := range ruleGroups(t, vals) {
		rules = append(rules, g.rules...)
	}
	return rules
}

type ruleGroup struct {
	name  string
	rules []map[string]any
}

// ruleGroups renders the chart with vals and returns the PrometheusRule's groups in order.
func ruleGroups(t *testing.T, vals map[string]any) []ruleGroup {
	t.Helper()
	objs, err := renderChart(vals)
	if err != nil {
		t.Fatal(err)
	}
	prs := byKind(objs, "PrometheusRule")
	if len(prs) != 1 {
		t.Fatalf("want one PrometheusRule, got %d", len(prs))
	}
	var groups []ruleGroup
	for _, g := range dig(prs[0], "spec", "groups").([]any) {
		group := ruleGroup{name: g.(map[string]any)["name"].(string)}
		for _, r := range g.(map[string]any)["rules"].([]any) {
			group.rules = append(group.rules, r.(map[string]any))
		}
		groups = append(groups, group)
	}
	return groups
}

// Every alert parses as PromQL, reads its group's job, has a valid duration, a severity, and a
// runbook_url whose anchor is a section of docs/alerts.md.
func TestPrometheusRuleIsValid(t *testing.T) {
	sections := alertSections(t)
	var names []string
	for _, g := range ruleGroups(t, allAlertsOn) {
		job, ok := groupJobs[g.name]
		if !ok {
			t.Errorf("group %q reads no known job", g.name)
		}
		for _, r := range g.rules {
			name, _ := r["alert"].(string)
			names = append(names, name)
			expr, err := parser.NewParser(parser.Options{}).ParseExpr(r["expr"].(string))
			if err != nil {
				t.Errorf("%s: expr does not parse: %v\n%s", name, err, r["expr"])
				continue
			}
			for _, sel := range parser.ExtractSelectors(expr) {
				if !slices.ContainsFunc(sel, func(m *labels.Matcher) bool { return m.Name == "job" && m.Value == job }) {
					t.Errorf("%s: a selector %v does not select job %q", name, sel, job)
				}
			}
			if f, ok := r["for"].(string); ok {
				if _, err := model.ParseDuration(f); err != nil {
					t.Errorf("%s: for %q: %v", name, f, err)
				}
			}
			if sev := dig(r, "labels", "severity"); sev != "warning" && sev != "critical" {
				t.Errorf("%s: severity %v", name, sev)
			}
			url, _ := dig(r, "annotations", "runbook_url").(string)
			base, anchor, _ := strings.Cut(url, "#")
			if _, ok := sections[anchor]; !strings.HasSuffix(base, "/docs/alerts.md") || anchor != strings.ToLower(name) || !ok {
				t.Errorf("%s: runbook_url %q is not a section of %s", name, url, alertsDoc)
			}
			for _, a := range []string{"summary", "description"} {
				if s, _ := dig(r, "annotations", a).(string); s == "" {
					t.Errorf("%s: no %s", name, a)
				}
			}
		}
	}
	want := []string{"BrokerTLSSecretExpiring", "BrokerOperatorWritebackStalled", "BrokerOperatorDrainNotProgressing", "BrokerClusterUnhealthy",
		"BrokerClusterDegraded", "BrokerClusterNotProgressing", "BrokerClusterGhostBrokers", "BrokerOperatorReconcileErrors", "BrokerOperatorLeaseNotRenewed",
		"BrokerPartitionsUnderReplicated", "BrokerPartitionsLeaderless", "BrokerDiskSpaceLow", "BrokerDiskSpaceDegraded",
		"BrokerCertificateExpiring"}
	if !slices.Equal(names, want) {
		t.Errorf("alerts %v, want %v", names, want)
	}
	if len(sections) != len(want) {
		t.Errorf("%s has %d sections, the rule %d alerts", alertsDoc, len(sections), len(want))
	}
}

// alertSections returns the text of each "## Name" section of docs/alerts.md, by the anchor
// GitHub gives it (the name in lower case).
func alertSections(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(alertsDoc)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	heading := regexp.MustCompile(`(?m)^## (\S+)$`)
	bounds := heading.FindAllStringSubmatchIndex(string(doc), -1)
	for i, m := range bounds {
		end := len(doc)
		if i+1 < len(bounds) {
			end = bounds[i+1][0]
		}
		sections[strings.ToLower(string(doc[m[2]:m[3]]))] = string(doc[m[1]:end])
	}
	return sections
}

// The thresholds are values; the lease alert goes with leader election; the rule is off by
// default and refused without metrics.
func TestPrometheusRuleValues(t *testing.T) {
	rules := alertRules(t, map[string]any{
		"replicas":       1,
		"leaderElection": map[string]any{"enabled": false},
		"metrics": map[string]any{"prometheusRule": map[string]any{
			"enabled": true, "drainStalledFor": "6h", "reconcileErrorsFor": "30m", "tlsSecretExpiryDays": 30,
			"runbookBaseURL": "https://runbooks.example/broker-operator/docs/alerts.md",
		}},
	})
	for _, r := range rules {
		switch r["alert"] {
		case "BrokerOperatorLeaseNotRenewed":
			t.Error("the lease alert is rendered with leader election off")
		case "BrokerOperatorDrainNotProgressing":
			if !strings.Contains(r["expr"].(string), "[6h]") {
				t.Errorf("drainStalledFor is not in %s", r["expr"])
			}
		case "BrokerTLSSecretExpiring":
			if !strings.HasSuffix(r["expr"].(string), "< 2592000") {
				t.Errorf("tlsSecretExpiryDays is not in %s", r["expr"])
			}
		case "BrokerOperatorReconcileErrors":
			if r["for"] != "30m" {
				t.Errorf("reconcileErrorsFor: for = %v", r["for"])
			}
		}
		if url, _ := dig(r, "annotations", "runbook_url").(string); !strings.HasPrefix(url, "https://runbooks.example/") {
			t.Errorf("%s: runbook_url %q ignores runbookBaseURL", r["alert"], url)
		}
	}

	objs, err := renderChart(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := byKind(objs, "PrometheusRule"); len(got) != 0 {
		t.Error("a PrometheusRule is rendered by default")
	}
	_, err = renderChart(map[string]any{"metrics": map[string]any{"enabled": false, "prometheusRule": map[string]any{"enabled": true}}})
	if err == nil || !strings.Contains(err.Error(), "metrics.prometheusRule.enabled needs metrics.enabled") {
		t.Errorf("PrometheusRule without metrics: %v", err)
	}
}

// The dashboard shows stalled write-back entries, the first alert's metric.
func TestDashboardShowsStalledEntries(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(chartDir, "dashboards/broker-operator.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "writeback_stalled_entries{") {
		t.Error("the dashboard has no writeback_stalled_entries panel")
	}
}
