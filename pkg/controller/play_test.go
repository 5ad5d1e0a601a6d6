package controller

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// playStatefulSet does what the StatefulSet controller and the kubelet would: one Running,
// Ready pod per ordinal below the StatefulSet's replicas, none above. It tells the simulator
// about each pod that started (Join) or went for good (Leave), as pod events would. It does not
// use Cluster.SyncPods, which joins every listed pod again: a pod still running a broker whose
// decommission has finished would come back as a new broker, which a real broker does not.
func (h *harness) playStatefulSet() {
	h.t.Helper()
	if err := playStatefulSet(h.ctx, h.kube, testName, h.cluster); err != nil {
		h.t.Fatal(err)
	}
	// Each pool declared in the simulator has a StatefulSet of its own, <cluster>-<pool>.
	for _, pool := range h.cluster.Pools() {
		if err := playSet(h.ctx, h.kube, testName, testName+"-"+pool, h.cluster.Pool(pool)); err != nil {
			h.t.Fatal(err)
		}
	}
	if h.badImage != "" {
		h.failPulls()
	}
}

// playStatefulSet plays the StatefulSet controller and kubelet for one cluster; see
// harness.playStatefulSet. It returns errors rather than failing, so it can run off the test's
// goroutine.
func playStatefulSet(ctx context.Context, kube *kubefake.Clientset, name string, cluster *admintest.Cluster) error {
	return playSet(ctx, kube, name, name, cluster)
}

// podRunner is what tells the simulator about a pod of one StatefulSet: a Cluster for the
// default pool's, a Pool for a named pool's.
type podRunner interface {
	Join(ordinal int) int
	Leave(ordinal int)
}

// playSet plays the StatefulSet named set of cluster name, as playStatefulSet does. Its pods
// are those of the cluster named exactly <set>-<ordinal>: another pool's are left alone.
func playSet(ctx context.Context, kube *kubefake.Clientset, name, set string, cluster podRunner) error {
	var replicas int32
	var template corev1.PodTemplateSpec
	sts, err := kube.AppsV1().StatefulSets(testNamespace).Get(ctx, set, metav1.GetOptions{})
	switch {
	case err == nil:
		replicas, template = *sts.Spec.Replicas, sts.Spec.Template
	case !apierrors.IsNotFound(err):
		return err
	}
	pods, err := kube.CoreV1().Pods(testNamespace).List(ctx, metav1.ListOptions{LabelSelector: LabelInstance + "=" + name})
	if err != nil {
		return err
	}
	have := map[int]bool{}
	for _, p := range pods.Items {
		ordinal, ok := brokerpod.Ordinal(&p, set)
		if !ok {
			continue // another pool's
		}
		if ordinal >= int(replicas) {
			if err := kube.CoreV1().Pods(testNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
				return err
			}
			cluster.Leave(ordinal)
			continue
		}
		have[ordinal] = true
	}
	for ordinal := range int(replicas) {
		if have[ordinal] {
			continue
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: set + "-" + strconv.Itoa(ordinal), Namespace: testNamespace,
				Labels: template.Labels, Annotations: template.Annotations,
			},
			Spec: template.Spec,
			Status: corev1.PodStatus{Phase: corev1.PodRunning, HostIP: playNodeIP(ordinal), Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue},
			}},
		}
		pod.Spec.NodeName = playNodeName(ordinal)
		if _, err := kube.CoreV1().Pods(testNamespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return err
		}
		cluster.Join(ordinal)
	}
	return nil
}

// playNodeName and playNodeIP place the pod of an ordinal: three nodes, taken in turn.
func playNodeName(ordinal int) string { return "node-" + strconv.Itoa(ordinal%3) }
func playNodeIP(ordinal int) string   { return "10.0.0." + strconv.Itoa(ordinal%3+1) }
