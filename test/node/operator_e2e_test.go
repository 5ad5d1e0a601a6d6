//go:build e2e

package node

import (
	"context"
	"fmt"
	"os"
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

// The tests run in this order and share the one Deployment; each first waits until it has rolled
// out, since the one before may have replaced a Pod.

// TestReplicasRunReadyUnderRestrictedPodSecurity: both replicas run Ready as real containers on the
// real node, in a namespace that enforces the restricted level (a Pod that breaks it is refused),
// as the image's non-root user with a read-only root filesystem.
func TestReplicasRunReadyUnderRestrictedPodSecurity(t *testing.T) {
	s := requireNode(t)
	pods := awaitOperatorRolledOut(t, kustomized)

	ns, err := s.Kube.CoreV1().Namespaces().Get(t.Context(), operatorNamespace, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ns.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
		t.Errorf("namespace %s enforces Pod Security level %q, want restricted", operatorNamespace, got)
	}
	// A Pod that may run as root and escalate privileges is fine at the baseline level only.
	baseline := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "baseline", Namespace: operatorNamespace},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: s.image}}},
	}
	_, err = s.Kube.CoreV1().Pods(operatorNamespace).Create(t.Context(), baseline, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `violates PodSecurity "restricted`) {
		t.Errorf("a Pod without the restricted security settings was not refused in %s: %v", operatorNamespace, err)
	}

	for _, pod := range pods {
		if pod.Spec.NodeName != framework.RealNodeName {
			t.Errorf("pod %s runs on node %q, want the real node %s", pod.Name, pod.Spec.NodeName, framework.RealNodeName)
		}
		if len(pod.Status.ContainerStatuses) != 1 || pod.Status.ContainerStatuses[0].ContainerID == "" {
			t.Fatalf("pod %s has no running container: %+v", pod.Name, pod.Status.ContainerStatuses)
		}
		status := pod.Status.ContainerStatuses[0]
		if pod.Spec.Containers[0].Image != s.image || !s.isSuiteImage(status.Image) {
			t.Errorf("pod %s asks for image %s and runs %s, want %s", pod.Name, pod.Spec.Containers[0].Image, status.Image, s.image)
		}
		pid, err := s.node.ContainerPID(t.Context(), status.ContainerID)
		if err != nil {
			t.Fatal(err)
		}
		procStatus, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "status"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(procStatus), "\n") {
			if field, ids, ok := strings.Cut(line, ":"); ok && (field == "Uid" || field == "Gid") {
				if f := strings.Fields(ids); len(f) == 0 || f[0] != "65532" {
					t.Errorf("pod %s's process runs with %s %v, want 65532 (the image's nonroot user)", pod.Name, field, f)
				}
			}
		}
		if !rootReadOnly(t, pid) {
			t.Errorf("pod %s's root filesystem is writable, want read-only", pod.Name)
		}
	}
}

// rootReadOnly reports whether the process's root mount is read-only.
func rootReadOnly(t *testing.T, pid int) bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "mountinfo"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		// ID parent major:minor root mountpoint options ...
		if f := strings.Fields(line); len(f) > 5 && f[4] == "/" {
			return strings.Contains(","+f[5]+",", ",ro,")
		}
	}
	t.Fatalf("process %d has no root mount", pid)
	return false
}

// TestOneReplicaLeads: exactly one of the two Pods holds the Lease, which lives in the namespace
// the Pods learnt from POD_NAMESPACE, and only the leader's log says it leads.
func TestOneReplicaLeads(t *testing.T) {
	requireNode(t)
	pods := awaitOperatorRolledOut(t, kustomized)
	leader, standby := awaitLeaderPod(t, pods)
	if logs := kubectl(t, "-n", operatorNamespace, "logs", standby.Name); strings.Contains(logs, `"Started leading"`) {
		t.Errorf("standby %s says it leads too:\n%s", standby.Name, logs)
	}
	awaitLog(t, leader.Name, `"Started leading"`)
}

// TestOperatorLogsComeFromKubectlLogs: the operator's own log lines reach kubectl logs through the
// kubelet: its start-up line with the version, and the leader's line.
func TestOperatorLogsComeFromKubectlLogs(t *testing.T) {
	requireNode(t)
	pods := awaitOperatorRolledOut(t, kustomized)
	leader, standby := awaitLeaderPod(t, pods)
	for _, p := range []corev1.Pod{leader, standby} {
		awaitLog(t, p.Name, `"Starting" version="broker-operator `)
	}
	awaitLog(t, leader.Name, `"Started leading"`)
	awaitLog(t, standby.Name, `"Another replica leads; standing by"`)
}

// awaitLog waits until kubectl logs of an operator Pod has text.
func awaitLog(t *testing.T, pod, text string) {
	t.Helper()
	var logs string
	err := wait.PollUntilContextTimeout(t.Context(), 500*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		logs = kubectl(t, "-n", operatorNamespace, "logs", pod)
		return strings.Contains(logs, text), nil
	})
	if err != nil {
		t.Fatalf("kubectl logs %s has no %s:\n%s", pod, text, logs)
	}
}

// TestScaleDownDecommissionsFromPods: the leader, a real Pod, reaches the brokers' admin API and
// decommissions each surplus broker once, highest ordinal first, before its Pod goes.
func TestScaleDownDecommissionsFromPods(t *testing.T) {
	requireNode(t)
	awaitLeaderPod(t, awaitOperatorRolledOut(t, kustomized))
	ns := env.NewNamespace(t)
	const name = "scaledown"
	env.CreateCluster(t, ns, name, 3, 500*time.Millisecond)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	env.Scale(t, ns, name, 1)
	env.AwaitConverged(t, ns, name, 1)
	checkDecommissionedOnce(t, ns, name, []int{ids[2], ids[1]})
}

// TestMetricsAndReadyzAnswerOnPodPorts: both Pods answer /readyz on their health port and /metrics
// on their metrics port, at the Pod IP; the leader's metrics count its reconciles.
func TestMetricsAndReadyzAnswerOnPodPorts(t *testing.T) {
	requireNode(t)
	leader, standby := awaitLeaderPod(t, awaitOperatorRolledOut(t, kustomized))
	ns := env.NewNamespace(t)
	env.CreateCluster(t, ns, "metrics", 1, 0)
	env.AwaitConverged(t, ns, "metrics", 1)
	for _, p := range []corev1.Pod{leader, standby} {
		if code, body := podGet(t, p, "health", "/readyz"); code != 200 {
			t.Errorf("pod %s /readyz answered %d: %s", p.Name, code, body)
		}
		code, body := podGet(t, p, "metrics", "/metrics")
		if code != 200 || !strings.Contains(body, "# TYPE ") {
			t.Errorf("pod %s /metrics answered %d with no metrics:\n%.500s", p.Name, code, body)
		}
	}
	if _, body := podGet(t, leader, "metrics", "/metrics"); !strings.Contains(body, "broker_operator_reconciles_total{") {
		t.Errorf("leader %s /metrics has no broker_operator_reconciles_total sample:\n%.2000s", leader.Name, body)
	}
}

// TestLeaderPodDeletedHandsOver deletes the leading Pod while a scale-down drains: another Pod
// (the standby, or the replacement the Deployment starts) takes the Lease within the lease
// duration, finishes the scale-down, and no broker is decommissioned twice.
func TestLeaderPodDeletedHandsOver(t *testing.T) {
	s := requireNode(t)
	leader, _ := awaitLeaderPod(t, awaitOperatorRolledOut(t, kustomized))
	ns := env.NewNamespace(t)
	const name = "handover"
	env.CreateCluster(t, ns, name, 4, 3*time.Second)
	env.AwaitConverged(t, ns, name, 4)
	ids := env.NodeIDs(t, ns, name, 4)
	env.Scale(t, ns, name, 1)
	env.AwaitDraining(t, ns, name)

	deleted := time.Now()
	if err := s.Kube.CoreV1().Pods(operatorNamespace).Delete(t.Context(), leader.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var (
		holder   string
		took     time.Duration
		duration time.Duration
	)
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		var err error
		holder, duration, err = leaderPod(ctx, operatorNamespace)
		took = time.Since(deleted)
		return err == nil && holder != leader.Name, nil
	})
	if err != nil {
		t.Fatalf("no other Pod took the Lease within %s of the leader's deletion (holder %q)", convergeLimit, holder)
	}
	t.Logf("pod %s took the Lease %s after leader %s was deleted (lease duration %s)", holder, took.Round(time.Millisecond), leader.Name, duration)
	if duration == 0 || took > duration {
		t.Errorf("hand-over took %s, want within the lease duration %s", took, duration)
	}
	if _, err := s.Kube.CoreV1().Pods(operatorNamespace).Get(t.Context(), holder, metav1.GetOptions{}); err != nil {
		t.Errorf("the new leader %s is not a Pod of the Deployment: %v", holder, err)
	}
	env.AwaitConverged(t, ns, name, 1)
	checkDecommissionedOnce(t, ns, name, []int{ids[3], ids[2], ids[1]})
	awaitOperatorRolledOut(t, kustomized)
}

// TestRollingUpdateDecommissionsOnce rolls the operator's Deployment to a new image tag while a
// scale-down drains: the rollout completes with both new Pods Ready, and every broker is
// decommissioned exactly once across the change of leader. It rolls the Deployment back to the
// suite's image when it ends, which the other tests expect under -count.
func TestRollingUpdateDecommissionsOnce(t *testing.T) {
	s := requireNode(t)
	before := awaitOperatorRolledOut(t, kustomized)
	repo, _ := splitImage(s.image)
	next := repo + ":rollout-" + fmt.Sprint(time.Now().Unix())
	if err := s.node.TagImage(t.Context(), s.image, next); err != nil {
		t.Fatal(err)
	}
	s.aliases = append(s.aliases, next)
	ns := env.NewNamespace(t)
	const name = "rollout"
	env.CreateCluster(t, ns, name, 4, 2*time.Second)
	env.AwaitConverged(t, ns, name, 4)
	ids := env.NodeIDs(t, ns, name, 4)
	env.Scale(t, ns, name, 1)
	env.AwaitDraining(t, ns, name)

	kubectl(t, "-n", operatorNamespace, "set", "image", "deployment/"+operatorDeployment, operatorContainer+"="+next)
	defer func() {
		kubectl(t, "-n", operatorNamespace, "set", "image", "deployment/"+operatorDeployment, operatorContainer+"="+s.image)
		awaitOperatorRolledOut(t, kustomized)
	}()
	after := awaitOperatorRolledOut(t, kustomized)
	for _, p := range after {
		for _, old := range before {
			if p.Name == old.Name {
				t.Errorf("pod %s survived the rollout", p.Name)
			}
		}
		if got := p.Spec.Containers[0].Image; got != next {
			t.Errorf("pod %s runs %s after the rollout, want %s", p.Name, got, next)
		}
	}
	awaitLeaderPod(t, after)
	env.AwaitConverged(t, ns, name, 1)
	checkDecommissionedOnce(t, ns, name, []int{ids[3], ids[2], ids[1]})
}
