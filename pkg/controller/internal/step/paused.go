package step

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Pausing a cluster, for the hour a person works on it by hand, as Strimzi's
// strimzi.io/pause-reconciliation annotation does. While a BrokerCluster carries
// broker-operator.dev/paused: "true", a reconcile reads it and stops: no admin call, no write to
// the cluster's objects, no status but the Paused condition and the disruption preview
// (preview.go: what a change made while paused will restart or remove, seen before it starts),
// no event but the one that says it is paused. A step whose call was already sent when the
// annotation arrived completes, since the reconcile that sent it is not interrupted; a drain or
// a leadership move Redpanda already carries out goes on inside Redpanda, and the operator looks
// again only once it is resumed. Removing the annotation (or any value but "true") resumes where
// status says it stopped.

// AnnotationPaused on a BrokerCluster pauses it when "true".
const AnnotationPaused = "broker-operator.dev/paused"

// Reasons of the Paused condition.
const (
	ReasonPaused  = "Paused"
	ReasonResumed = "Resumed"
)

// IsPaused reports whether bc is paused.
func IsPaused(bc *v1alpha1.BrokerCluster) bool { return bc.Annotations[AnnotationPaused] == "true" }

// PausedStatus is bc's status with the Paused condition True, saying what was under way, and
// preview, the disruption preview of the spec as it is now. Once the condition is True nothing
// more is written but a new preview: not even the generation of a spec changed while paused.
func PausedStatus(bc *v1alpha1.BrokerCluster, preview *v1alpha1.DisruptionPreview, now time.Time) v1alpha1.BrokerClusterStatus {
	st := *bc.Status.DeepCopy()
	st.DisruptionPreview = preview
	if meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionPaused) {
		return st
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: v1alpha1.ConditionPaused, Status: metav1.ConditionTrue,
		Reason: ReasonPaused, Message: PausedMessage(bc), ObservedGeneration: bc.Generation, LastTransitionTime: metav1.NewTime(now)})
	return st
}

// PausedMessage says that bc is paused, what that means, and what was under way.
func PausedMessage(bc *v1alpha1.BrokerCluster) string {
	msg := fmt.Sprintf("paused by the annotation %s=true: no admin call, no write but status.disruptionPreview and no step until it is removed", AnnotationPaused)
	st := bc.Status
	switch {
	case st.DecommissioningBroker != nil:
		msg += fmt.Sprintf("; broker %d was being decommissioned, and Redpanda goes on draining it", *st.DecommissioningBroker)
	case st.Restart != nil:
		msg += fmt.Sprintf("; broker %d (pod %s) was being restarted, step %s, and stays as it is (in maintenance mode if it was)", st.Restart.NodeID, st.Restart.Pod, st.Restart.Step)
	}
	return msg
}

// resumed sets the Paused condition False once bc is no longer paused; a cluster never paused
// gets no Paused condition at all.
func resumed(st *v1alpha1.BrokerClusterStatus, generation int64, at metav1.Time) {
	if !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionPaused) {
		return
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: v1alpha1.ConditionPaused, Status: metav1.ConditionFalse,
		Reason: ReasonResumed, Message: "resumed: the annotation " + AnnotationPaused + " is no longer \"true\"", ObservedGeneration: generation, LastTransitionTime: at})
}
