package framework

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func fakeNode() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: FakeNodeName,
			Labels: map[string]string{
				fakeNodeLabelKey:         fakeNodeLabelValue,
				"kubernetes.io/hostname": FakeNodeName,
				"kubernetes.io/os":       "linux",
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

func createFakeNode(ctx context.Context, client kubernetes.Interface) error {
	_, err := client.CoreV1().Nodes().Create(ctx, fakeNode(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create fake node: %w", err)
	}
	return nil
}

// nodeSchedulableCheck passes once kwok reports the node Ready and the node lifecycle controller
// has lifted its not-ready taints, so the first Pods of a test are not turned away.
func nodeSchedulableCheck(client kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		node, err := client.CoreV1().Nodes().Get(ctx, FakeNodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !nodeReady(node) {
			return fmt.Errorf("node %s is not Ready yet", FakeNodeName)
		}
		for _, taint := range node.Spec.Taints {
			if taint.Key != kwokNodeAnnotation {
				return fmt.Errorf("node %s still has taint %s", FakeNodeName, taint.ToString())
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
