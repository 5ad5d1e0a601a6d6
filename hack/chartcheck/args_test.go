package chartcheck

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The operator accepts every set of flags the chart renders: it parses and validates them, and
// stops only at the kubeconfig this test points at nothing (exit 1, not the usage error's 2).
func TestOperatorAcceptsTheChartsArgs(t *testing.T) {
	binary := filepath.Join(t.TempDir(), "broker-operator")
	build := exec.Command("go", "build", "-o", binary, "./cmd/broker-operator")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the operator: %v\n%s", err, out)
	}
	for name, vals := range map[string]map[string]any{
		"defaults":                       nil,
		"everything on":                  everythingOn,
		"eviction webhook, cert-manager": evictionWebhookCertManager,
		"eviction webhook, own Secret":   evictionWebhookOwnSecret,
		"switches off": {
			"replicas":       1,
			"metrics":        map[string]any{"enabled": false},
			"leaderElection": map[string]any{"enabled": false},
		},
	} {
		t.Run(name, func(t *testing.T) {
			objs, err := renderChart(vals)
			if err != nil {
				t.Fatal(err)
			}
			_, c := deployment(t, objs)
			missing := filepath.Join(t.TempDir(), "no-kubeconfig")
			out, err := exec.Command(binary, append(args(c), "--kubeconfig="+missing)...).CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "kubernetes client config") {
				t.Fatalf("broker-operator %v: %v, want exit 1 at the missing kubeconfig:\n%s", args(c), err, out)
			}
		})
	}
}
