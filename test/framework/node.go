package framework

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// fakeNode is the i-th fake Node: kwok plays its kubelet, its taint keeps Pods that do not
// tolerate it away, and it is in zone FakeNodeZones[i%len].
func fakeNode(i int) *corev1.Node {
	name := FakeNodeNames(i + 1)[i]
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				fakeNodeLabelKey:         fakeNodeLabelValue,
				corev1.LabelHostname:     name,
				corev1.LabelOSStable:     "linux",
				corev1.LabelTopologyZone: FakeNodeZones[i%len(FakeNodeZones)],
			},
			Annotations: map[string]string{
				kwokNodeAnnotation: kwokNodeValue,
				// A zero TTL lets the node controller skip its object cache for this node.
				"node.alpha.kubernetes.io/ttl": "0",
			},
		},
		Spec: corev1.NodeSpec{
			Taints: []corev1.Taint{{Key: kwokNodeAnnotation, Value: kwokNodeValue, Effect: corev1.TaintEffectNoSchedule}},
		},
	}
}

// createFakeNodes creates the first n fake Nodes and returns their names.
func createFakeNodes(ctx context.Context, client kubernetes.Interface, n int) ([]string, error) {
	var names []string
	for i := range n {
		node := fakeNode(i)
		_, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create fake node %s: %w", node.Name, err)
		}
		names = append(names, node.Name)
	}
	return names, nil
}

// nodeSchedulableCheck passes once kwok reports every node Ready and the node lifecycle
// controller has lifted its not-ready taints, so the first Pods of a test are not turned away.
func nodeSchedulableCheck(client kubernetes.Interface, names []string) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, name := range names {
			node, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !nodeReady(node) {
				return fmt.Errorf("node %s is not Ready yet", name)
			}
			for _, taint := range node.Spec.Taints {
				if taint.Key != kwokNodeAnnotation {
					return fmt.Errorf("node %s still has taint %s", name, taint.ToString())
				}
			}
		}
		return nil
	}
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// FakeNodes are the names of the fake Nodes the control plane started with (Options.FakeNodes);
// AddFakeNode's are not among them.
func (cp *ControlPlane) FakeNodes() []string {
	return slices.Clone(cp.fakeNodes)
}

// AddFakeNode adds another node kwok runs, with labels and taints besides the fake nodes' own,
// and a pod finisher for it; it returns once the node is Ready and schedulable. remove deletes
// the node and stops its finisher. A test that drains a node uses nodes of its own, tainted so
// that no other test's pods land there.
func (cp *ControlPlane) AddFakeNode(ctx context.Context, name string, labels map[string]string, taints []corev1.Taint) (remove func(), err error) {
	client, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		return nil, err
	}
	n := fakeNode(0)
	n.Name = name
	n.Labels[corev1.LabelHostname] = name
	delete(n.Labels, fakeNodeLabelKey)
	delete(n.Labels, corev1.LabelTopologyZone)
	maps.Copy(n.Labels, labels)
	n.Spec.Taints = append(n.Spec.Taints, taints...)
	if _, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create fake node %s: %w", name, err)
	}
	finisher, err := startPodFinisherFrom(filepath.Join(cp.Dir, podFinisherUser+".kubeconfig"), nil, name)
	if err != nil {
		return nil, err
	}
	remove = func() {
		finisher.stop()
		_ = client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{})
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || !nodeReady(got) {
			return false, nil
		}
		for _, t := range got.Spec.Taints {
			if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		remove()
		return nil, fmt.Errorf("fake node %s never became schedulable: %w", name, err)
	}
	return remove, nil
}
