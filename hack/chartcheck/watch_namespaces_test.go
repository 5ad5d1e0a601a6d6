package chartcheck

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// watchedNamespaces are deploy/watch-namespaces' example namespaces.
var watchedNamespaces = []any{"team-a", "team-b"}

// With watchNamespaces the operator is granted nothing namespaced outside them: no
// ClusterRoleBinding grants Secrets (or any namespaced resource), and a RoleBinding of the
// operator's ClusterRole exists in each watched namespace. deploy/watch-namespaces, the same
// install with kustomize, renders the same objects.
func TestWatchNamespacesBindsTheRolePerNamespace(t *testing.T) {
	vals := map[string]any{"watchNamespaces": watchedNamespaces}
	objs, err := renderChart(vals)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]object{}
	for _, r := range byKind(objs, "ClusterRole") {
		roles[dig(r, "metadata", "name").(string)] = r
	}
	for _, b := range byKind(objs, "ClusterRoleBinding") {
		role := roles[dig(b, "roleRef", "name").(string)]
		for _, rule := range asList(dig(role, "rules")) {
			for _, res := range asList(dig(rule, "resources")) {
				if !slices.Contains(clusterScoped, res.(string)) {
					t.Errorf("ClusterRoleBinding %s grants %s cluster-wide", dig(b, "metadata", "name"), res)
				}
			}
		}
	}
	bound := map[string]bool{}
	for _, b := range byKind(objs, "RoleBinding") {
		if dig(b, "roleRef", "kind") == "ClusterRole" && dig(b, "roleRef", "name") == releaseName {
			bound[dig(b, "metadata", "namespace").(string)] = true
		}
	}
	for _, ns := range watchedNamespaces {
		if !bound[ns.(string)] {
			t.Errorf("no RoleBinding of the operator's ClusterRole in %s", ns)
		}
	}
	if len(bound) != len(watchedNamespaces) {
		t.Errorf("RoleBindings in %v, want exactly %v", bound, watchedNamespaces)
	}
	_, container := deployment(t, objs)
	for _, ns := range watchedNamespaces {
		if !slices.Contains(args(container), "--namespace="+ns.(string)) {
			t.Errorf("the operator does not watch %s: args %v", ns, args(container))
		}
	}
	assertChartRenders(t, vals, filepath.Join(deployDir, "watch-namespaces"))
}

// Every rule of the ClusterRole on a cluster-scoped resource is in the cluster-scoped role, so
// the operator bound per namespace lacks none of them.
func TestClusterScopedRoleHasEveryClusterScopedRule(t *testing.T) {
	objs, err := renderChart(map[string]any{"watchNamespaces": watchedNamespaces})
	if err != nil {
		t.Fatal(err)
	}
	var full, scoped []any
	for _, r := range byKind(objs, "ClusterRole") {
		switch dig(r, "metadata", "name") {
		case releaseName:
			full = asList(dig(r, "rules"))
		case releaseName + "-cluster-scoped":
			scoped = asList(dig(r, "rules"))
		}
	}
	for _, rule := range full {
		for _, res := range asList(dig(rule, "resources")) {
			if slices.Contains(clusterScoped, res.(string)) && !containsRule(scoped, rule) {
				t.Errorf("the cluster-scoped role lacks %v", rule)
			}
		}
	}
	if len(scoped) == 0 {
		t.Error("no cluster-scoped role")
	}
}

// clusterScoped are the cluster-scoped resources the operator's ClusterRole names.
var clusterScoped = []string{"nodes", "persistentvolumes", "storageclasses"}

func asList(v any) []any { l, _ := v.([]any); return l }

func containsRule(rules []any, rule any) bool {
	for _, r := range rules {
		if toYAML(r) == toYAML(rule) {
			return true
		}
	}
	return false
}

// With watchNamespaces and no namespaceSelector of its own, the eviction webhook sees only
// evictions in the watched namespaces: elsewhere it could not read the pod anyway.
func TestEvictionWebhookDefaultsToTheWatchedNamespaces(t *testing.T) {
	objs, err := renderChart(map[string]any{"watchNamespaces": watchedNamespaces,
		"evictionWebhook": map[string]any{"enabled": true}})
	if err != nil {
		t.Fatal(err)
	}
	hook := one(t, objs, "ValidatingWebhookConfiguration")
	webhooks := asList(dig(hook, "webhooks"))
	if len(webhooks) != 1 {
		t.Fatalf("webhooks %v", webhooks)
	}
	got := toYAML(dig(webhooks[0], "namespaceSelector"))
	for _, want := range []string{"kubernetes.io/metadata.name", "team-a", "team-b"} {
		if !strings.Contains(got, want) {
			t.Errorf("namespaceSelector %s lacks %s", got, want)
		}
	}
}
