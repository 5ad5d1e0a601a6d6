//go:build e2e

package framework

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// A fake-Node pod deleted gracefully goes at once, finished by pod-finisher with the pod's UID as
// a precondition, as a kubelet does; kwok deletes nothing. A pod made again under the same name
// right after is a new pod that only a delete naming its own UID can remove.
func TestPodDeletesAreFinishedWithThePodsUID(t *testing.T) {
	cp := StartForTest(t, Options{})
	client, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	pods := client.CoreV1().Pods(metav1.NamespaceDefault)
	const rounds = 5
	var uids []types.UID
	for range rounds {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/c"}}},
		}
		PlaceOnFakeNode(&pod.Spec)
		created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		uids = append(uids, created.UID)
		awaitPod(t, ctx, "running", func() (bool, error) {
			p, err := pods.Get(ctx, "p", metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, err
		})
		if err := pods.Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		awaitPod(t, ctx, "gone", func() (bool, error) {
			_, err := pods.Get(ctx, "p", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	}
	// The apiserver writes an audit entry once the response is complete: wait for all of them.
	var finished []Request
	awaitPod(t, ctx, "audited", func() (bool, error) {
		deletes, err := cp.PodDeletes()
		finished = finished[:0]
		for _, d := range deletes {
			switch {
			case d.User == "kwok":
				t.Fatalf("kwok deleted a pod: %s", d)
			case d.User == podFinisherUser && d.Code == 200:
				finished = append(finished, d)
			}
		}
		return len(finished) >= rounds, err
	})
	if len(finished) != rounds {
		t.Fatalf("pod-finisher finished %d deletes, want %d: %v", len(finished), rounds, finished)
	}
	for i, d := range finished {
		if d.PreconditionUID != string(uids[i]) {
			t.Errorf("delete %d (%s) required UID %q, want the pod's own %q", i, d, d.PreconditionUID, uids[i])
		}
	}
}

// awaitPod waits until done holds; the fake Nodes' pods change within seconds.
func awaitPod(t *testing.T, ctx context.Context, what string, done func() (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		ok, err := done()
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		return ok, nil
	}); err != nil {
		t.Fatalf("pod not %s: %v", what, err)
	}
}
