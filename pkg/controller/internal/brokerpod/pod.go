package brokerpod

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

const (
	// AnnotationNodeID records on a pod the ID of the broker it runs, once the operator has
	// learnt it.
	AnnotationNodeID = "broker-operator.dev/node-id"
	// AnnotationTemplateHash is set in the pod template and so on every pod: a hash of the
	// template the pod was made from. A pod whose hash is not status.updateRevision is restarted
	// by the rollout (internal/step/rollout.go).
	AnnotationTemplateHash = "broker-operator.dev/template-hash"
	// AnnotationRestartRequested asks the rollout to restart the pod's broker, as it restarts
	// an outdated one, and before any other: set by the eviction webhook when a drain evicts
	// the pod, or by a person. Its value says who asked, for messages. The pod that replaces
	// it is made from the template, without it.
	AnnotationRestartRequested = "broker-operator.dev/restart-requested"
)

// RestartRequested reports whether someone asked for the pod's broker to be restarted, and who.
func RestartRequested(pod *corev1.Pod) (string, bool) {
	v, ok := pod.Annotations[AnnotationRestartRequested]
	return v, ok
}

// Ordinal returns the ordinal of a pod named <cluster>-<ordinal>.
func Ordinal(pod *corev1.Pod, clusterName string) (int, bool) {
	rest, ok := strings.CutPrefix(pod.Name, clusterName+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// NodeID returns the broker ID recorded on a pod.
func NodeID(pod *corev1.Pod) (int32, bool) {
	v, ok := pod.Annotations[AnnotationNodeID]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	return int32(n), err == nil
}

// ByOrdinal indexes a cluster's pods by ordinal.
func ByOrdinal(pods []*corev1.Pod, clusterName string) map[int]*corev1.Pod {
	out := make(map[int]*corev1.Pod, len(pods))
	for _, p := range pods {
		if o, ok := Ordinal(p, clusterName); ok {
			out[o] = p
		}
	}
	return out
}

// IsReady reports whether the pod's Ready condition is true and it is not being deleted.
func IsReady(pod *corev1.Pod) bool {
	i := slices.IndexFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady })
	return pod.DeletionTimestamp == nil && i >= 0 && pod.Status.Conditions[i].Status == corev1.ConditionTrue
}

// Revision is the hash of the template the pod was made from.
func Revision(pod *corev1.Pod) string { return pod.Annotations[AnnotationTemplateHash] }

// Image is the image the pod's broker container (its only container) runs, "" when it has none.
func Image(pod *corev1.Pod) string {
	if len(pod.Spec.Containers) == 0 {
		return ""
	}
	return pod.Spec.Containers[0].Image
}

// ReadyBelow counts the ready pods with an ordinal below replicas.
func ReadyBelow(pods map[int]*corev1.Pod, replicas int32) int32 {
	var n int32
	for ordinal, p := range pods {
		if ordinal < int(replicas) && IsReady(p) {
			n++
		}
	}
	return n
}
