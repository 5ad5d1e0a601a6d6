//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/test/brokersim"
)

// TestDeployManifestsApply applies every manifest in deploy/ with a server-side dry run: the
// kustomization (namespace, CRD, RBAC, the operator's Deployment and metrics Service) and the
// example BrokerCluster.
func TestDeployManifestsApply(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	deploy := filepath.Join(env.repoRoot, "deploy")
	for _, args := range [][]string{
		{"apply", "--server-side", "--dry-run=server", "-k", deploy},
		{"apply", "--server-side", "--dry-run=server", "-n", ns, "-f", filepath.Join(deploy, "examples")},
	} {
		out, err := brokersim.Kubectl(t.Context(), env.cp.KubeconfigPath, args...)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasSuffix(line, "(server dry run)") {
				t.Errorf("kubectl %s: unexpected line %q", strings.Join(args, " "), line)
			}
		}
		t.Logf("kubectl %s:\n%s", strings.Join(args, " "), out)
	}
}
