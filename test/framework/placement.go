package framework

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The fake Node that kwok manages. Pods only land on it if they tolerate its taint.
const (
	FakeNodeName = "kwok-node-0"

	// kwokNodeAnnotation marks the Nodes kwok manages (kwok runs with a matching selector).
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
	kwokNodeValue      = "fake"

	fakeNodeLabelKey   = "type"
	fakeNodeLabelValue = "kwok"
)

// FakeNodeTolerations returns the tolerations a Pod needs to be scheduled onto the fake Node.
// Every Pod template the tests create (the operator's StatefulSets included) must carry them.
func FakeNodeTolerations() []corev1.Toleration {
	return []corev1.Toleration{{
		Key:      kwokNodeAnnotation,
		Operator: corev1.TolerationOpEqual,
		Value:    kwokNodeValue,
		Effect:   corev1.TaintEffectNoSchedule,
	}}
}

// FakeNodeSelector returns a nodeSelector that matches only the fake Node.
func FakeNodeSelector() map[string]string {
	return map[string]string{fakeNodeLabelKey: fakeNodeLabelValue}
}

// PlaceOnFakeNode adds the fake Node's toleration and nodeSelector to a Pod spec.
func PlaceOnFakeNode(spec *corev1.PodSpec) {
	spec.Tolerations = append(spec.Tolerations, FakeNodeTolerations()...)
	if spec.NodeSelector == nil {
		spec.NodeSelector = map[string]string{}
	}
	for k, v := range FakeNodeSelector() {
		spec.NodeSelector[k] = v
	}
}

// ReadyDelayAnnotation on a Pod (or a Pod template) makes kwok wait this long, a Go duration such
// as "2s", before it marks the Pod Running and Ready. Without it Pods become Ready at once.
const ReadyDelayAnnotation = "pod-ready.stage.kwok.x-k8s.io/delay"

// DelayReadiness sets ReadyDelayAnnotation on Pod (template) metadata.
func DelayReadiness(meta *metav1.ObjectMeta, delay time.Duration) {
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[ReadyDelayAnnotation] = delay.String()
}
