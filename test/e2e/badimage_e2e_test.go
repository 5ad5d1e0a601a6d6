//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/framework"
)

// A rollout of an image that cannot be pulled: the first restarted broker's pod stays in
// ImagePullBackOff, nothing else restarts, the cluster says which pod and why, and the broker
// leaves maintenance mode; the fix then heals the cluster with no manual step, one broker at a
// time.
func TestABadImageThenItsFixHealsTheCluster(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "bad-image"
	createAt(t, ns, name, "v25.1.2")
	const bad = "registry.invalid/broker:v25.1.3-unpullable"
	stopFailing := failPulls(t, ns, bad)
	defer stopFailing()
	patch := fmt.Appendf(nil, `{"spec":{"image":%q,"podAnnotations":{%q:"1h"}}}`, bad, framework.ReadyDelayAnnotation)
	patchCluster(t, ns, name, patch)
	bc := awaitStatus(t, ns, name, "Degraded BrokerPodCannotStart naming the image", func(bc *v1alpha1.BrokerCluster) bool {
		d := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return d != nil && d.Status == metav1.ConditionTrue && d.Reason == controller.ReasonBrokerPodCannotStart && strings.Contains(d.Message, bad)
	})
	stuckBroker := bc.Status.Restart
	if stuckBroker == nil {
		t.Fatal("no restart recorded while its pod cannot start")
	}
	awaitStatus(t, ns, name, "the stuck broker out of maintenance", func(*v1alpha1.BrokerCluster) bool {
		return len(maintenanceLeftOn(ns, name)) == 0
	})
	if ons := maintenanceOns(ns, name); len(ons) != 1 {
		t.Fatalf("%d brokers went into maintenance during the bad rollout, want only the first", len(ons))
	}

	patchCluster(t, ns, name, []byte(`{"spec":{"image":"registry.invalid/broker:v25.1.3","podAnnotations":null}}`))
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.3")
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	events, err := env.Kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	replaced := false
	for _, e := range events.Items {
		replaced = replaced || (e.Reason == "ReplaceStuckPod" && strings.Contains(e.Message, stuckBroker.Pod))
	}
	if !replaced {
		t.Errorf("no ReplaceStuckPod event for pod %s: the fix did not heal it by itself", stuckBroker.Pod)
	}
	checkBrokersSafe(t, ns, name)
}

func patchCluster(t *testing.T, ns, name string, patch []byte) {
	t.Helper()
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// failPulls plays the kubelet for ns's pods of image: their status becomes what it writes after
// a failed pull (Pending, not Ready, the container waiting in ImagePullBackOff). kwok leaves
// them alone, as they carry framework.ReadyDelayAnnotation.
func failPulls(t *testing.T, ns, image string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			for i := range pods.Items {
				p := &pods.Items[i]
				if p.Spec.Containers[0].Image != image || p.DeletionTimestamp != nil || pullFailed(p) {
					continue
				}
				p.Status.Phase = corev1.PodPending
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
					{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: p.Spec.Containers[0].Name, Image: image,
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image \"" + image + "\""}}}}
				_, _ = env.Kube.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
			}
			return false, nil
		})
	}()
	return func() { cancel(); <-done }
}

func pullFailed(p *corev1.Pod) bool {
	for _, s := range p.Status.ContainerStatuses {
		if s.State.Waiting != nil && s.State.Waiting.Reason == "ImagePullBackOff" {
			return true
		}
	}
	return false
}
