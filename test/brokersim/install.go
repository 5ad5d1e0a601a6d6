package brokersim

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// OperatorNamespace and OperatorServiceAccount are where deploy/ puts the operator's identity.
const (
	OperatorNamespace      = "broker-operator-system"
	OperatorServiceAccount = "broker-operator"
)

// Install applies deploy/'s namespace, CRD and RBAC (not the Deployment: the operator runs as a
// local process) and the stand-ins for cert-manager's CRDs (test/brokerenv/certmanager-crds.yaml)
// with kubectl server-side apply, and waits until the CRDs are established.
// repoRoot is the repository's root directory, kubeconfig an admin kubeconfig.
func Install(ctx context.Context, repoRoot, kubeconfig string) error {
	deploy := filepath.Join(repoRoot, "deploy")
	steps := [][]string{
		{"apply", "--server-side", "--field-manager=brokersim", "-f", filepath.Join(deploy, "namespace.yaml")},
		{"apply", "--server-side", "--field-manager=brokersim", "-k", filepath.Join(deploy, "crd")},
		{"apply", "--server-side", "--field-manager=brokersim", "-n", OperatorNamespace, "-k", filepath.Join(deploy, "rbac")},
		{"apply", "--server-side", "--field-manager=brokersim", "-f", filepath.Join(repoRoot, "test", "brokerenv", "certmanager-crds.yaml")},
		{"wait", "--for=condition=Established", "--timeout=60s", "crd/brokerclusters.broker-operator.dev", "crd/brokertopics.broker-operator.dev", "crd/brokerusers.broker-operator.dev", "crd/certificates.cert-manager.io"},
	}
	for _, args := range steps {
		if _, err := Kubectl(ctx, kubeconfig, args...); err != nil {
			return err
		}
	}
	return nil
}

// Kubectl runs kubectl with the given kubeconfig and returns its standard output; an error carries
// the command and its standard error.
func Kubectl(ctx context.Context, kubeconfig string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, withoutSkewWarning(stderr.String()))
	}
	return stdout.String(), nil
}

// withoutSkewWarning drops kubectl's version skew warning, which says nothing about the failure.
func withoutSkewWarning(stderr string) string {
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.Contains(line, "version difference") && !strings.Contains(line, "version skew") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}
