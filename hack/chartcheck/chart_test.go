package chartcheck

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// With default values the chart renders what deploy/ holds, object for object: the same RBAC
// rules, Deployment settings, Service and CRD. Only Helm's bookkeeping labels differ, and the
// Namespace, which a Helm release does not own (README.md says how to create it).
func TestChartRendersDeploy(t *testing.T) {
	assertChartRenders(t, nil, deployDir)
}

// assertChartRenders checks that the chart with vals renders what the kustomization in dir
// builds, object for object, the Namespace and Helm's labels aside.
func assertChartRenders(t *testing.T, vals map[string]any, dir string) {
	t.Helper()
	chart, err := renderChart(vals)
	if err != nil {
		t.Fatalf("render the chart: %v", err)
	}
	deploy := renderKustomizeDir(t, dir)

	namespaceKey := "v1 Namespace /" + releaseNamespace
	if _, ok := deploy[namespaceKey]; !ok {
		t.Fatalf("%s no longer creates %s; update this test and the chart's README", dir, namespaceKey)
	}
	for _, key := range sortedKeys(deploy) {
		if key == namespaceKey {
			continue
		}
		got, ok := chart[key]
		if !ok {
			t.Errorf("%s has %s, which the chart does not render", dir, key)
			continue
		}
		if got.kind() != "CustomResourceDefinition" { // crds/ is not templated
			assertHelmLabels(t, key, got)
		}
		if want, got := deploy[key], withoutHelmLabels(got); !reflect.DeepEqual(want, got) {
			t.Errorf("%s differs between %s and the chart.\nkustomize:\n%s\nchart:\n%s", key, dir, toYAML(want), toYAML(got))
		}
	}
	for _, key := range sortedKeys(chart) {
		if _, ok := deploy[key]; !ok {
			t.Errorf("the chart renders %s, which %s does not have", key, dir)
		}
	}
	if t.Failed() {
		t.Logf("%s renders:\n  %s\nthe chart renders:\n  %s", dir, describe(deploy), describe(chart))
	}
}

// The comparison leaves Helm's labels out; this checks that they are there, so that `helm
// uninstall` and label queries find every object the chart made.
func assertHelmLabels(t *testing.T, key string, o object) {
	t.Helper()
	labels, _ := dig(o, "metadata", "labels").(map[string]any)
	for _, l := range helmLabels {
		if _, ok := labels[l]; !ok {
			t.Errorf("%s has no %s label", key, l)
		}
	}
	if labels["app.kubernetes.io/instance"] != releaseName {
		t.Errorf("%s: app.kubernetes.io/instance = %v, want the release name %q", key, labels["app.kubernetes.io/instance"], releaseName)
	}
}

// The chart's crds/ holds exactly what hack/update-codegen.sh writes to deploy/crd/bases.
func TestChartCRDsAreDeployCRDs(t *testing.T) {
	assertSameFiles(t, filepath.Join(deployDir, "crd/bases"), filepath.Join(chartDir, "crds"), "hack/update-codegen.sh")
}

// The Grafana dashboards, the operator's and the brokers', have one source, the chart's;
// deploy/dashboards holds the same bytes.
func TestDashboardCopiesAreEqual(t *testing.T) {
	assertSameFiles(t, filepath.Join(chartDir, "dashboards"), filepath.Join(deployDir, "dashboards"), "cp charts/broker-operator/dashboards/* deploy/dashboards/")
	for _, name := range []string{"broker-operator.json", "brokers.json"} {
		data, err := os.ReadFile(filepath.Join(chartDir, "dashboards", name))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Errorf("dashboards/%s is not valid JSON", name)
		}
	}
}

func assertSameFiles(t *testing.T, wantDir, gotDir, fix string) {
	t.Helper()
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	wantNames, gotNames := names(wantDir), names(gotDir)
	if !slices.Equal(wantNames, gotNames) {
		t.Fatalf("%s holds %v, %s holds %v; run %s", wantDir, wantNames, gotDir, gotNames, fix)
	}
	for _, name := range wantNames {
		want, err := os.ReadFile(filepath.Join(wantDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(gotDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s differs from %s; run %s", filepath.Join(gotDir, name), filepath.Join(wantDir, name), fix)
		}
	}
}

// everythingOn turns on each optional part, so that lint and the value tests see every template.
var everythingOn = map[string]any{
	"watchNamespaces":  []any{"team-a", "team-b"},
	"verbosity":        4,
	"clusterDomain":    "corp.example",
	"imagePullSecrets": []any{map[string]any{"name": "registry"}},
	"metrics": map[string]any{
		"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}},
	},
	"grafanaDashboard": map[string]any{"enabled": true},
	"extraArgs":        []any{"--workers=4"},
	"podAnnotations":   map[string]any{"example.com/team": "brokers"},
	"nodeSelector":     map[string]any{"kubernetes.io/os": "linux"},
	"brokerMonitoring": brokerMonitoringTLS,
}

// helm lint --strict: no errors and no warnings, with default values, with every option on, and
// with the eviction webhook in each certificate mode.
func TestHelmLint(t *testing.T) {
	for name, vals := range map[string]map[string]any{
		"defaults":                       nil,
		"everything on":                  everythingOn,
		"eviction webhook, cert-manager": evictionWebhookCertManager,
		"eviction webhook, own Secret":   evictionWebhookOwnSecret,
	} {
		t.Run(name, func(t *testing.T) {
			lint := action.NewLint()
			lint.Strict = true
			lint.Namespace = releaseNamespace
			res := lint.Run([]string{chartDir}, vals)
			for _, msg := range res.Messages {
				t.Logf("lint: %s", msg)
			}
			if res.TotalChartsLinted != 1 {
				t.Errorf("linted %d charts, want 1", res.TotalChartsLinted)
			}
			for _, err := range res.Errors {
				t.Errorf("lint: %v", err)
			}
		})
	}
}

// Each value reaches the operator's flags or the objects it is documented to change.
func TestChartValues(t *testing.T) {
	objs, err := renderChart(everythingOn)
	if err != nil {
		t.Fatal(err)
	}
	dep, c := deployment(t, objs)
	gotArgs := args(c)
	for _, want := range []string{"--namespace=team-a", "--namespace=team-b", "-v=4", "--workers=4", "--leader-elect=true", "--metrics-bind-address=:8080"} {
		if !slices.Contains(gotArgs, want) {
			t.Errorf("args %v lack %s", gotArgs, want)
		}
	}
	if got := dig(dep, "spec", "template", "metadata", "annotations", "example.com/team"); got != "brokers" {
		t.Errorf("pod annotation = %v", got)
	}
	if got := dig(dep, "spec", "template", "spec", "nodeSelector", "kubernetes.io/os"); got != "linux" {
		t.Errorf("nodeSelector = %v", got)
	}

	monitors := byKind(objs, "ServiceMonitor")
	if len(monitors) != 1 {
		t.Fatalf("want one ServiceMonitor, got %d", len(monitors))
	}
	sm := monitors[0]
	if got := dig(sm, "metadata", "labels", "release"); got != "prometheus" {
		t.Errorf("ServiceMonitor label release = %v", got)
	}
	svcs := byKind(objs, "Service")
	if len(svcs) != 1 {
		t.Fatalf("want one Service, got %d", len(svcs))
	}
	if !reflect.DeepEqual(dig(sm, "spec", "selector", "matchLabels"), map[string]any{"app.kubernetes.io/name": "broker-operator"}) {
		t.Errorf("ServiceMonitor selects %v", dig(sm, "spec", "selector"))
	}
	if port := dig(svcs[0], "spec", "ports").([]any)[0].(map[string]any)["name"]; port != dig(sm, "spec", "endpoints").([]any)[0].(map[string]any)["port"] {
		t.Errorf("ServiceMonitor scrapes port %v, the Service's is %v", dig(sm, "spec", "endpoints"), port)
	}

	cms := byKind(objs, "ConfigMap")
	if len(cms) != 1 {
		t.Fatalf("want one ConfigMap (the dashboard), got %d", len(cms))
	}
	want, err := os.ReadFile(filepath.Join(chartDir, "dashboards/broker-operator.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := dig(cms[0], "data", "broker-operator.json"); got != strings.TrimRight(string(want), "\n") {
		t.Errorf("the dashboard ConfigMap does not hold dashboards/broker-operator.json")
	}
	if got := dig(cms[0], "metadata", "labels", "grafana_dashboard"); got != "1" {
		t.Errorf("the dashboard ConfigMap's grafana_dashboard label = %v", got)
	}
}

// Turning metrics or leader election off removes their objects and sets the flags that turn
// them off in the operator.
func TestChartSwitchesOff(t *testing.T) {
	objs, err := renderChart(map[string]any{
		"replicas":       1,
		"metrics":        map[string]any{"enabled": false},
		"leaderElection": map[string]any{"enabled": false},
		"image":          map[string]any{"repository": "registry.example/broker-operator", "tag": "v9", "pullPolicy": "Always"},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, c := deployment(t, objs)
	gotArgs := args(c)
	for _, want := range []string{"--metrics-bind-address=0", "--leader-elect=false"} {
		if !slices.Contains(gotArgs, want) {
			t.Errorf("args %v lack %s", gotArgs, want)
		}
	}
	for _, p := range c["ports"].([]any) {
		if p.(map[string]any)["name"] == "metrics" {
			t.Error("the container still declares the metrics port")
		}
	}
	if c["image"] != "registry.example/broker-operator:v9" || c["imagePullPolicy"] != "Always" {
		t.Errorf("image %v, pull policy %v", c["image"], c["imagePullPolicy"])
	}
	for _, kind := range []string{"Service", "ServiceMonitor", "Role", "RoleBinding"} {
		if got := byKind(objs, kind); len(got) != 0 {
			t.Errorf("%d %s rendered with metrics and leader election off", len(got), kind)
		}
	}
}

// Values that cannot work fail the install with a message that says why.
func TestChartRejectsBadValues(t *testing.T) {
	for name, tc := range map[string]struct {
		vals map[string]any
		want string
	}{
		"two replicas without leader election": {
			map[string]any{"leaderElection": map[string]any{"enabled": false}},
			"replicas > 1 needs leaderElection.enabled",
		},
		"ServiceMonitor without metrics": {
			map[string]any{"metrics": map[string]any{"enabled": false, "serviceMonitor": map[string]any{"enabled": true}}},
			"metrics.serviceMonitor.enabled needs metrics.enabled",
		},
		"metrics and probes on one port": {
			map[string]any{"metrics": map[string]any{"port": 8081}},
			"metrics.port and healthProbePort must differ",
		},
		"a namespace name that is not one": {
			map[string]any{"watchNamespaces": []any{"Team_A"}},
			"watchNamespaces",
		},
		"a misspelt value": {
			map[string]any{"replica": 3},
			"replica",
		},
		"broker TLS without a CA": {
			map[string]any{"brokerMonitoring": map[string]any{"enabled": true, "tls": map[string]any{"enabled": true}}},
			"brokerMonitoring.tls.enabled needs brokerMonitoring.tls.caSecret.name",
		},
		"a misspelt broker monitoring value": {
			map[string]any{"brokerMonitoring": map[string]any{"enable": true}},
			"enable",
		},
		"certificate expiry in days as a duration": {
			map[string]any{"brokerMonitoring": map[string]any{"alerts": map[string]any{"certificateExpiryDays": "14d"}}},
			"certificateExpiryDays",
		},
		"a cluster domain with a trailing dot": {
			map[string]any{"clusterDomain": "cluster.local."},
			"clusterDomain",
		},
		"verbosity as a string": {
			map[string]any{"verbosity": "debug"},
			"verbosity",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := renderChart(tc.vals)
			if err == nil {
				t.Fatal("the chart rendered")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// A chart whose links to deploy/rbac lead nowhere (copied out of the repository) fails to render
// rather than granting nothing.
func TestChartWithoutItsRBACFilesFails(t *testing.T) {
	for _, path := range []string{"files/cluster_role.yaml", "files/leader_election_role.yaml"} {
		t.Run(path, func(t *testing.T) {
			chrt, err := loader.Load(chartDir)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range chrt.Files {
				if f.Name == path {
					f.Data, found = nil, true
				}
			}
			if !found {
				t.Fatalf("the loaded chart has no %s", path)
			}
			_, err = render(chrt, nil)
			if err == nil || !strings.Contains(err.Error(), path+" holds no RBAC rules") {
				t.Fatalf("render without %s: %v", path, err)
			}
		})
	}
}
