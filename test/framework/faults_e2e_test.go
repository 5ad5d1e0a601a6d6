//go:build e2e

package framework

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
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

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "after-restart", Namespace: metav1.NamespaceDefault},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "none"}}},
	}
	PlaceOnFakeNode(&pod.Spec)
	if _, err := client.CoreV1().Pods(pod.Namespace).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last *corev1.Pod
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = got
		return podReady(got), nil
	})
	if err != nil {
		t.Fatalf("a pod created after the restart did not become Ready (last status %+v): %v", last.Status, err)
	}
	t.Logf("pod Ready %s after the restart", time.Since(started).Round(time.Millisecond))
	if ready := time.Now(); ready.After(leaseExpires) {
		t.Errorf("the pod became Ready at %s, after the old kwok's Lease expired (%s): the new kwok waited for it", ready.Format(time.StampMilli), leaseExpires.Format(time.StampMilli))
	}
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
