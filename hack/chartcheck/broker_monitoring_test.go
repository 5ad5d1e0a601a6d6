package chartcheck

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
)

// brokersJob is the job label the brokers' PodMonitor gives every broker series.
const brokersJob = releaseName + "-brokers"

// brokerMonitoringTLS turns broker monitoring on for brokers with a TLS admin API.
var brokerMonitoringTLS = map[string]any{
	"enabled": true,
	"tls": map[string]any{
		"enabled":      true,
		"caSecret":     map[string]any{"name": "brokers-admin-ca"},
		"clientSecret": "prometheus-client-tls",
	},
	"basicAuth": map[string]any{"secretName": "brokers-metrics-auth"},
}

// podMonitor renders the chart with vals and returns its one PodMonitor's spec and endpoint.
func podMonitor(t *testing.T, vals map[string]any) (map[string]any, map[string]any) {
	t.Helper()
	objs, err := renderChart(vals)
	if err != nil {
		t.Fatal(err)
	}
	pms := byKind(objs, "PodMonitor")
	if len(pms) != 1 {
		t.Fatalf("want one PodMonitor, got %d", len(pms))
	}
	assertHelmLabels(t, pms[0].key(), pms[0])
	spec := dig(pms[0], "spec").(map[string]any)
	endpoints := spec["podMetricsEndpoints"].([]any)
	if len(endpoints) != 1 {
		t.Fatalf("want one endpoint, got %v", endpoints)
	}
	return spec, endpoints[0].(map[string]any)
}

// relabel applies the endpoint's relabelings to a target's labels as Prometheus does for the
// replace action: join the source labels, match the anchored regex, expand the replacement
// into the target label. Defaults: separator ";", regex "(.*)", replacement "$1".
func relabel(t *testing.T, endpoint map[string]any, labels map[string]string) map[string]string {
	t.Helper()
	out := maps.Clone(labels)
	for _, raw := range endpoint["relabelings"].([]any) {
		r := raw.(map[string]any)
		sep, regex, replacement := ";", "(.*)", "$1"
		if v, ok := r["separator"].(string); ok {
			sep = v
		}
		if v, ok := r["regex"].(string); ok {
			regex = v
		}
		if v, ok := r["replacement"].(string); ok {
			replacement = v
		}
		var values []string
		sources, _ := r["sourceLabels"].([]any)
		for _, l := range sources {
			values = append(values, out[l.(string)])
		}
		re := regexp.MustCompile("^(?:" + regex + ")$")
		joined := strings.Join(values, sep)
		if !re.MatchString(joined) {
			continue
		}
		out[r["targetLabel"].(string)] = re.ReplaceAllString(joined, replacement)
	}
	return out
}

// relabeling returns the endpoint's relabeling that writes target.
func relabeling(t *testing.T, endpoint map[string]any, target string) map[string]any {
	t.Helper()
	for _, r := range endpoint["relabelings"].([]any) {
		if r.(map[string]any)["targetLabel"] == target {
			return r.(map[string]any)
		}
	}
	return nil
}

// The PodMonitor scrapes /public_metrics on the port the operator names "admin" in every broker
// pod (pkg/controller/internal/objects/podspec.go) of the pods that carry the operator's labels
// (resources.go, SelectorLabels; pkg/controller/internal/objects/brokermonitor_test.go holds both to
// the operator's constants), gives them one job and the cluster's name, in every namespace by
// default.
func TestBrokerPodMonitor(t *testing.T) {
	spec, ep := podMonitor(t, map[string]any{"brokerMonitoring": map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}}})
	if want := map[string]any{"app.kubernetes.io/name": "broker", "app.kubernetes.io/managed-by": "broker-operator"}; !reflect.DeepEqual(dig(spec, "selector", "matchLabels"), want) {
		t.Errorf("selector %v, want %v", dig(spec, "selector"), want)
	}
	if want := map[string]any{"any": true}; !reflect.DeepEqual(spec["namespaceSelector"], want) {
		t.Errorf("namespaceSelector %v, want %v", spec["namespaceSelector"], want)
	}
	for field, want := range map[string]any{"port": "admin", "path": "/public_metrics", "scheme": "http", "interval": "30s"} {
		if ep[field] != want {
			t.Errorf("endpoint %s = %v, want %v", field, ep[field], want)
		}
	}
	for _, field := range []string{"tlsConfig", "basicAuth"} {
		if _, ok := ep[field]; ok {
			t.Errorf("endpoint has %s without it being asked for: %v", field, ep[field])
		}
	}
	if r := relabeling(t, ep, "job"); r == nil || r["replacement"] != brokersJob {
		t.Errorf("job relabeling %v, want the replacement %q", r, brokersJob)
	}
	if r := relabeling(t, ep, "brokercluster"); r == nil || !reflect.DeepEqual(r["sourceLabels"], []any{"__meta_kubernetes_pod_label_app_kubernetes_io_instance"}) {
		t.Errorf("brokercluster relabeling %v", r)
	}
	if r := relabeling(t, ep, "__address__"); r != nil {
		t.Errorf("the address is rewritten without TLS: %v", r)
	}

	objs, err := renderChart(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := byKind(objs, "PodMonitor"); len(got) != 0 {
		t.Error("a PodMonitor is rendered by default")
	}
}

// The namespaces scraped are brokerMonitoring.namespaces, else the operator's watchNamespaces.
func TestBrokerPodMonitorNamespaces(t *testing.T) {
	for name, tc := range map[string]struct {
		vals map[string]any
		want []any
	}{
		"the watched namespaces": {
			map[string]any{"watchNamespaces": []any{"team-a", "team-b"}, "brokerMonitoring": map[string]any{"enabled": true}},
			[]any{"team-a", "team-b"},
		},
		"a list of its own": {
			map[string]any{"watchNamespaces": []any{"team-a", "team-b"}, "brokerMonitoring": map[string]any{"enabled": true, "namespaces": []any{"team-b"}}},
			[]any{"team-b"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			spec, _ := podMonitor(t, tc.vals)
			if want := map[string]any{"matchNames": tc.want}; !reflect.DeepEqual(spec["namespaceSelector"], want) {
				t.Errorf("namespaceSelector %v, want %v", spec["namespaceSelector"], want)
			}
		})
	}
}

// With TLS, Prometheus trusts the CA Secret, presents the client certificate, sends the basic
// auth Secret, and scrapes each pod by the stable DNS name its certificate holds
// (<pod>.<cluster>.<namespace>.svc.cluster.local, pkg/admin/address.go).
func TestBrokerPodMonitorTLS(t *testing.T) {
	_, ep := podMonitor(t, map[string]any{"brokerMonitoring": brokerMonitoringTLS})
	if ep["scheme"] != "https" {
		t.Errorf("scheme %v", ep["scheme"])
	}
	want := map[string]any{
		"ca":        map[string]any{"secret": map[string]any{"name": "brokers-admin-ca", "key": "ca.crt"}},
		"cert":      map[string]any{"secret": map[string]any{"name": "prometheus-client-tls", "key": "tls.crt"}},
		"keySecret": map[string]any{"name": "prometheus-client-tls", "key": "tls.key"},
	}
	if !reflect.DeepEqual(ep["tlsConfig"], want) {
		t.Errorf("tlsConfig %v, want %v", ep["tlsConfig"], want)
	}
	wantAuth := map[string]any{
		"username": map[string]any{"name": "brokers-metrics-auth", "key": "username"},
		"password": map[string]any{"name": "brokers-metrics-auth", "key": "password"},
	}
	if !reflect.DeepEqual(ep["basicAuth"], wantAuth) {
		t.Errorf("basicAuth %v, want %v", ep["basicAuth"], wantAuth)
	}

	for _, tc := range []struct{ pod, pool, address, poolLabel string }{
		{"orders-2", "", "orders-2.orders.team-a.svc.cluster.local:9644", "default"},
		{"orders-blue-1", "blue", "orders-blue-1.orders-blue.team-a.svc.cluster.local:9644", "blue"},
	} {
		got := relabel(t, ep, map[string]string{
			"__meta_kubernetes_pod_name":                             tc.pod,
			"__meta_kubernetes_pod_label_app_kubernetes_io_instance": "orders",
			"__meta_kubernetes_pod_label_broker_operator_dev_pool":   tc.pool,
			"__meta_kubernetes_namespace":                            "team-a",
			"__meta_kubernetes_pod_container_port_number":            "9644",
		})
		if got["__address__"] != tc.address || got["pool"] != tc.poolLabel || got["brokercluster"] != "orders" {
			t.Errorf("pod %s: address %q, pool %q, brokercluster %q; want %q, %q, orders", tc.pod, got["__address__"], got["pool"], got["brokercluster"], tc.address, tc.poolLabel)
		}
	}

	if _, err := renderChart(map[string]any{"brokerMonitoring": map[string]any{"enabled": true, "tls": map[string]any{"enabled": true}}}); err == nil || !strings.Contains(err.Error(), "brokerMonitoring.tls.enabled needs brokerMonitoring.tls.caSecret.name") {
		t.Errorf("TLS without a CA: %v", err)
	}
}

// brokerAlertsTemplate is where the broker alerts and the comments citing their metrics are.
const brokerAlertsTemplate = chartDir + "/templates/prometheus_rule.yaml"

// Every broker alert names only Redpanda metrics of redpandaMetrics, with labels they carry, and
// cites each metric's source file in the comment above it and in its section of
// docs/alerts.md, which also names the metric.
func TestBrokerAlertsCiteTheirMetrics(t *testing.T) {
	tmpl, err := os.ReadFile(brokerAlertsTemplate)
	if err != nil {
		t.Fatal(err)
	}
	comments := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)((?:^[ \t]*#.*\n)+)[ \t]*- alert: (\w+)`).FindAllStringSubmatch(string(tmpl), -1) {
		comments[m[2]] = m[1]
	}
	sections := alertSections(t)

	var brokers *ruleGroup
	for _, g := range ruleGroups(t, allAlertsOn) {
		if g.name == "brokers" {
			brokers = &g
		}
	}
	if brokers == nil || len(brokers.rules) == 0 {
		t.Fatal("no brokers group of alerts with brokerMonitoring.enabled")
	}
	for _, r := range brokers.rules {
		name := r["alert"].(string)
		q, err := checkRedpandaQuery(r["expr"].(string))
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, r["expr"])
		}
		for _, metric := range q.metrics {
			source := redpandaMetrics[metric].source
			if c := comments[name]; !strings.Contains(c, metric) || !strings.Contains(c, source) {
				t.Errorf("%s: the comment above it in %s does not cite %s in %s:\n%s", name, brokerAlertsTemplate, metric, source, c)
			}
			if s := sections[strings.ToLower(name)]; !strings.Contains(s, metric) || !strings.Contains(s, source) {
				t.Errorf("%s: its section of %s does not cite %s in %s", name, alertsDoc, metric, source)
			}
		}
	}

	for _, g := range ruleGroups(t, prometheusRuleOn) {
		if g.name == "brokers" {
			t.Error("the broker alerts are rendered without brokerMonitoring.enabled")
		}
	}
}

// The broker alerts' thresholds are values.
func TestBrokerAlertValues(t *testing.T) {
	rules := alertRules(t, map[string]any{
		"metrics": map[string]any{"prometheusRule": map[string]any{"enabled": true}},
		"brokerMonitoring": map[string]any{"enabled": true, "alerts": map[string]any{
			"underReplicatedFor": "20m", "leaderlessFor": "3m", "diskSpaceFor": "7m", "certificateExpiryDays": 30,
		}},
	})
	wantFor := map[string]string{
		"BrokerPartitionsUnderReplicated": "20m",
		"BrokerPartitionsLeaderless":      "3m",
		"BrokerDiskSpaceLow":              "7m",
		"BrokerDiskSpaceDegraded":         "7m",
	}
	seen := 0
	for _, r := range rules {
		name := r["alert"].(string)
		if want, ok := wantFor[name]; ok {
			seen++
			if r["for"] != want {
				t.Errorf("%s: for = %v, want %s", name, r["for"], want)
			}
		}
		if name == "BrokerCertificateExpiring" {
			seen++
			if expr := r["expr"].(string); strings.Count(expr, "< 2592000") != 2 {
				t.Errorf("%s: 30 days (2592000 s) is not the threshold of both terms:\n%s", name, expr)
			}
		}
	}
	if seen != 5 {
		t.Errorf("found %d of the 5 broker alerts", seen)
	}
}

const brokersDashboard = "dashboards/brokers.json"

// dashboard is what the checks read of a Grafana dashboard.
type dashboard struct {
	Panels []struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Targets     []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

func readDashboard(t *testing.T, path string) dashboard {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// Every panel of the brokers dashboard queries only cited Redpanda metrics of the selected job,
// through an expression Prometheus parses, and says in its description which metric it shows
// and where Redpanda defines it.
func TestBrokersDashboard(t *testing.T) {
	dash := readDashboard(t, filepath.Join(chartDir, brokersDashboard))
	if len(dash.Panels) == 0 {
		t.Fatal("no panels")
	}
	grafanaVars := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m")
	queries := 0
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			queries++
			q, err := checkRedpandaQuery(grafanaVars.Replace(target.Expr))
			if err != nil {
				t.Errorf("panel %q: %v\n%s", p.Title, err, target.Expr)
				continue
			}
			for _, sel := range q.selectors {
				if !slices.ContainsFunc(sel, func(m *labels.Matcher) bool { return m.String() == `job=~"$job"` }) {
					t.Errorf("panel %q: a selector %v does not select the job variable", p.Title, sel)
				}
			}
			for _, metric := range q.metrics {
				name := strings.TrimSuffix(metric, "_bucket")
				if !strings.Contains(p.Description, name) || !strings.Contains(p.Description, redpandaMetrics[metric].source) {
					t.Errorf("panel %q: the description does not cite %s in %s", p.Title, name, redpandaMetrics[metric].source)
				}
			}
		}
	}
	if queries < 8 {
		t.Errorf("only %d queries", queries)
	}
	for _, v := range dash.Templating.List {
		if v.Definition == "" {
			continue
		}
		m := regexp.MustCompile(`^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`).FindStringSubmatch(v.Definition)
		if m == nil || redpandaMetrics[m[1]].source == "" {
			t.Errorf("variable %s: %q reads no cited Redpanda metric", v.Name, v.Definition)
		}
	}
}

// The dashboard ConfigMap holds the brokers dashboard with brokerMonitoring.enabled only.
func TestBrokersDashboardConfigMap(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(chartDir, brokersDashboard))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		vals map[string]any
		want bool
	}{
		"with broker monitoring":    {map[string]any{"grafanaDashboard": map[string]any{"enabled": true}, "brokerMonitoring": map[string]any{"enabled": true}}, true},
		"without broker monitoring": {map[string]any{"grafanaDashboard": map[string]any{"enabled": true}}, false},
	} {
		t.Run(name, func(t *testing.T) {
			objs, err := renderChart(tc.vals)
			if err != nil {
				t.Fatal(err)
			}
			cms := byKind(objs, "ConfigMap")
			if len(cms) != 1 {
				t.Fatalf("want one ConfigMap, got %d", len(cms))
			}
			got, ok := dig(cms[0], "data", "brokers.json").(string)
			if ok != tc.want {
				t.Fatalf("brokers.json in the ConfigMap: %v, want %v", ok, tc.want)
			}
			if ok && got != strings.TrimRight(string(want), "\n") {
				t.Error("the ConfigMap's brokers.json is not dashboards/brokers.json")
			}
		})
	}
}
