package framework

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The fake Nodes that kwok manages. Pods only land on them if they tolerate their taint.
const (
	// FakeNodeName is the first fake Node.
	FakeNodeName = "kwok-node-0"

	// DefaultFakeNodes is how many fake Nodes a control plane starts unless Options.FakeNodes
	// says otherwise. BrokerClusters put at most one broker on a node by default, and the
	// largest clusters the tests make have 7 brokers (the soak's and the race experiment's
	// schedules); one more leaves room for a pod that is replaced while its old one goes.
	DefaultFakeNodes = 8

	// kwokNodeAnnotation marks the Nodes kwok manages (kwok runs with a matching selector).
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
	kwokNodeValue      = "fake"

	fakeNodeLabelKey   = "type"
	fakeNodeLabelValue = "kwok"
)

// FakeNodeZones are the zones the fake Nodes are in, in turn (topology.kubernetes.io/zone), so
// that a topology spread over zones has something to spread over.
var FakeNodeZones = []string{"zone-a", "zone-b", "zone-c"}

// FakeNodeNames are the names of a control plane's n fake Nodes: FakeNodeName first.
func FakeNodeNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("kwok-node-%d", i)
	}
	return names
}

// FakeNodeTolerations returns the tolerations a Pod needs to be scheduled onto the fake Nodes.
// Every Pod template the tests create (the operator's StatefulSets included) must carry them.
func FakeNodeTolerations() []corev1.Toleration {
	return []corev1.Toleration{{
		Key:      kwokNodeAnnotation,
		Operator: corev1.TolerationOpEqual,
		Value:    kwokNodeValue,
		Effect:   corev1.TaintEffectNoSchedule,
	}}
}

// FakeNodeSelector returns a nodeSelector that matches only the fake Nodes.
func FakeNodeSelector() map[string]string {
	return map[string]string{fakeNodeLabelKey: fakeNodeLabelValue}
}

// PlaceOnFakeNode adds the fake Nodes' toleration and nodeSelector to a Pod spec.
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
