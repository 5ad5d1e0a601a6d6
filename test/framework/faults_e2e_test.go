//go:build e2e

package framework

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/test/brokersim"
)

func TestRestartAPIServerRestartsKwokAndPodsStillBecomeReady(t *testing.T) {
	cp := StartForTest(t, Options{})
	_, apiserver := cp.component("kube-apiserver")
	_, kwok := cp.component("kwok")

	client, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	// Until this time the old kwok's Lease would keep a new kwok away from the Node.
	lease, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(t.Context(), FakeNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	leaseExpires := lease.Spec.RenewTime.Add(time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second)

	started := time.Now()
	if err := cp.RestartAPIServer(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Logf("apiserver and kwok restarted in %s", time.Since(started).Round(time.Millisecond))
	for _, old := range []*process{apiserver, kwok} {
		select {
		case <-old.done:
		default:
			t.Errorf("the %s from before the restart still runs", old.name)
		}
		_, now := cp.component(old.name)
		if now == old {
			t.Errorf("%s was not started again", old.name)
		} else if err := now.exitError(); err != nil {
			t.Errorf("restarted %s: %v", old.name, err)
		}
	}

	if err := createPodAndAwaitReady(t, client, "after-restart"); err != nil {
		t.Fatal(err)
	}
	t.Logf("pod Ready %s after the restart", time.Since(started).Round(time.Millisecond))
	if ready := time.Now(); ready.After(leaseExpires) {
		t.Errorf("the pod became Ready at %s, after the old kwok's Lease expired (%s): the new kwok waited for it", ready.Format(time.StampMilli), leaseExpires.Format(time.StampMilli))
	}
}

func TestSupervisedComponentsAreStartedAgainAfterTheyExit(t *testing.T) {
	cp := StartForTest(t, Options{})
	client, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	_, old := cp.component("kube-scheduler")
	if err := syscall.Kill(old.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-old.done
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cp.Restarts()["kube-scheduler"] == 1, nil
	})
	if err != nil {
		t.Fatalf("kube-scheduler not started again (restarts %v): %v", cp.Restarts(), err)
	}
	if _, now := cp.component("kube-scheduler"); now == old || now.exitError() != nil {
		t.Fatalf("kube-scheduler after its restart: same process %t, %v", now == old, now.exitError())
	}
	// The new scheduler takes its Lease once the old one's expires, then schedules.
	if err := createPodAndAwaitReady(t, client, "after-scheduler-exit"); err != nil {
		t.Fatal(err)
	}
	if got := cp.Restarts(); len(got) != 1 {
		t.Errorf("restarts %v, want only kube-scheduler's", got)
	}
}

// createPodAndAwaitReady makes a pod on a fake Node and waits until it is Ready.
func createPodAndAwaitReady(t *testing.T, client kubernetes.Interface, name string) error {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "none"}}},
	}
	PlaceOnFakeNode(&pod.Spec)
	if _, err := client.CoreV1().Pods(pod.Namespace).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = got
		return brokersim.PodReady(got), nil
	})
	if err != nil {
		return fmt.Errorf("pod %s did not become Ready (last status %+v): %w", name, last.Status, err)
	}
	return nil
}
