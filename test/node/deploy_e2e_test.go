//go:build e2e

package node

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/broker-operator/broker-operator/test/brokersim"
)

const (
	operatorNamespace  = brokersim.OperatorNamespace
	operatorDeployment = "broker-operator"
	operatorContainer  = "operator"
	operatorSelector   = "app.kubernetes.io/name=broker-operator"
	// leaseName is the operator's default --leader-elect-lease-name.
	leaseName = "broker-operator"
	// rolloutTimeout bounds a rollout of the operator's Deployment.
	rolloutTimeout = "3m"
)

// deploy applies deploy/ as a user would, with kubectl apply -k, through an overlay that only sets
// the image to the one imported from the tar and points the operator at the simulator.
func (s *suite) deploy(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "node-e2e-overlay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	base, err := filepath.Rel(dir, filepath.Join(s.repoRoot, "deploy"))
	if err != nil {
		return err
	}
	repo, tag := splitImage(s.image)
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(overlay(base, repo, tag, s.Sim.BrokerAddressTemplate())), 0o644); err != nil {
		return err
	}
	if _, err := brokersim.Kubectl(ctx, s.node.KubeconfigPath, "apply", "--server-side", "--field-manager=node-e2e", "-k", dir); err != nil {
		return err
	}
	if _, err := brokersim.Kubectl(ctx, s.node.KubeconfigPath, "wait", "--for=condition=Established", "--timeout=60s", "crd/brokerclusters.broker-operator.dev"); err != nil {
		return err
	}
	_, err = brokersim.Kubectl(ctx, s.node.KubeconfigPath, "-n", operatorNamespace, "rollout", "status", "deployment/"+operatorDeployment, "--timeout="+rolloutTimeout)
	return err
}

// overlay is a kustomization over deploy/ that changes nothing but the image and two flags: the
// simulator's address, and a short drain poll so that scale-downs finish quickly.
func overlay(base, repo, tag, adminTemplate string) string {
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - %s
images:
  - name: broker-operator
    newName: %s
    newTag: %s
patches:
  - target:
      kind: Deployment
      name: %s
    patch: |-
      - op: add
        path: /spec/template/spec/containers/0/args/-
        value: %s
      - op: add
        path: /spec/template/spec/containers/0/args/-
        value: --drain-poll-interval=200ms
`, quote(base), quote(repo), quote(tag), operatorDeployment, quote("--admin-address-template="+adminTemplate))
}
