//go:build e2e

package node

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/test/framework"
)

const (
	chartNamespace = "broker-operator-helm"
	chartRelease   = "chart-e2e"
	// The chart names its objects after the release and the chart.
	chartFullname = chartRelease + "-broker-operator"
	chartUser     = "system:serviceaccount:" + chartNamespace + ":" + chartFullname
)

// TestChartInstallRunsOnTheNode installs the operator with helm from charts/broker-operator, as the
// README shows, after deploy/'s operator has been scaled to zero: both replicas run Ready in a
// restricted namespace, one leads, and a scale-down decommissions each broker once. When it ends
// it uninstalls the chart and brings deploy/'s operator back, which the suite's other tests run
// on, so that the suite can run again (-count). It lives in the file that sorts last (go test
// runs files in name order), so that the other tests need not wait for that.
func TestChartInstallRunsOnTheNode(t *testing.T) {
	s := requireNode(t)
	helm := helmBinary(t, s)

	kubectl(t, "-n", operatorNamespace, "scale", "deployment/"+operatorDeployment, "--replicas=0")
	defer restoreKustomized(t, s, helm)
	awaitNoOperatorPods(t, operatorNamespace)

	// The namespace stays after the test (see newNamespace): a run under -count finds it.
	_, err := s.Kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chartNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	kubectl(t, "label", "--overwrite", "namespace", chartNamespace, "pod-security.kubernetes.io/enforce=restricted")
	repo, tag := splitImage(s.image)
	extraArgs, err := json.Marshal([]string{"--admin-address-template=" + s.Sim.BrokerAddressTemplate(), "--drain-poll-interval=200ms"})
	if err != nil {
		t.Fatal(err)
	}
	runHelm(t, s, helm, "install", chartRelease, filepath.Join(s.repoRoot, "charts", "broker-operator"),
		"--namespace", chartNamespace,
		"--set", "image.repository="+repo, "--set", "image.tag="+tag,
		"--set-json", "extraArgs="+string(extraArgs),
		"--wait", "--timeout", rolloutTimeout)

	pods := awaitOperatorRolledOut(t, install{chartNamespace, chartFullname})
	for _, p := range pods {
		if p.Spec.NodeName != framework.RealNodeName {
			t.Errorf("pod %s runs on node %q, want %s", p.Name, p.Spec.NodeName, framework.RealNodeName)
		}
	}
	awaitLeaderPod(t, pods)

	ns := env.NewNamespace(t)
	const name = "chart"
	env.CreateCluster(t, ns, name, 3, 500*time.Millisecond)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	env.Scale(t, ns, name, 1)
	env.AwaitConverged(t, ns, name, 1)
	checkDecommissionedOnce(t, ns, name, []int{ids[2], ids[1]})
}

// restoreKustomized takes the chart's operator away and brings deploy/'s back at two Ready Pods.
// The chart's Pods go before its release does: a Pod still running once its RBAC was deleted
// would be refused, which the suite's final RBAC check counts.
func restoreKustomized(t *testing.T, s *suite, helm string) {
	t.Helper()
	_, err := s.Kube.AppsV1().Deployments(chartNamespace).Get(t.Context(), chartFullname, metav1.GetOptions{})
	switch {
	case err == nil:
		kubectl(t, "-n", chartNamespace, "scale", "deployment/"+chartFullname, "--replicas=0")
		awaitNoOperatorPods(t, chartNamespace)
		runHelm(t, s, helm, "uninstall", chartRelease, "--namespace", chartNamespace, "--wait", "--timeout", rolloutTimeout)
	case !apierrors.IsNotFound(err):
		t.Fatal(err)
	}
	kubectl(t, "-n", operatorNamespace, "scale", "deployment/"+operatorDeployment, "--replicas=2")
	awaitOperatorRolledOut(t, kustomized)
}

// awaitNoOperatorPods waits until no operator Pod is left in namespace, terminating or not.
func awaitNoOperatorPods(t *testing.T, namespace string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), poll, convergeLimit, true, func(ctx context.Context) (bool, error) {
		pods, err := env.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: operatorSelector})
		return err == nil && len(pods.Items) == 0, nil
	})
	if err != nil {
		t.Fatalf("the operator Pods in %s did not go within %s", namespace, convergeLimit)
	}
}

// helmBinary is the helm that hack/controlplane/build.sh builds beside the control plane.
func helmBinary(t *testing.T, s *suite) string {
	t.Helper()
	dir := os.Getenv(framework.BinDirEnv)
	if dir == "" {
		dir = filepath.Join(s.repoRoot, "_output", "bin")
	}
	path := filepath.Join(dir, "helm")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("helm is missing (%v); build it with %s helm", err, framework.BuildCommand)
	}
	return path
}

// runHelm runs helm against the node with its own, empty home directories.
func runHelm(t *testing.T, s *suite, helm string, args ...string) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.CommandContext(t.Context(), helm, append(args, "--kubeconfig", s.node.KubeconfigPath)...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// splitImage splits name:tag; a name without a tag has the tag latest.
func splitImage(image string) (repo, tag string) {
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[:colon], image[colon+1:]
	}
	return image, "latest"
}
