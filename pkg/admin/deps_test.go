package admin

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoKubernetesDependency keeps the client and the simulator usable outside Kubernetes
// programs: nothing under pkg/admin, tests included, may pull in a Kubernetes module.
func TestNoKubernetesDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "k8s.io/") || strings.HasPrefix(pkg, "sigs.k8s.io/") {
			t.Errorf("pkg/admin depends on %s", pkg)
		}
	}
}
