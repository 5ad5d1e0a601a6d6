package controller

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Condition reasons.
const (
	ReasonAllBrokersReady     = "AllBrokersReady"
	ReasonBrokersNotReady     = "BrokersNotReady"
	ReasonScalingUp           = "ScalingUp"
	ReasonScalingDown         = "ScalingDown"
	ReasonSteady              = "Steady"
	ReasonAdminAPIUnavailable = "AdminAPIUnavailable"
	// ReasonAdminAPIUnauthorized: the brokers answered 401 or 403.
	ReasonAdminAPIUnauthorized = "AdminAPIUnauthorized"
	// ReasonAdminAPIForbidden: the brokers answered 403: the user is not a superuser.
	ReasonAdminAPIForbidden = "AdminAPIForbidden"
	// ReasonAdminAPITLSRefused: the TLS handshake failed for its certificates: the brokers
	// refused the client certificate, or theirs did not verify against ca.crt.
	ReasonAdminAPITLSRefused = "AdminAPITLSRefused"
	ReasonBrokerIDUnknown    = "BrokerIDUnknown"
	ReasonAsExpected         = "AsExpected"
	ReasonClusterUnhealthy   = "ClusterUnhealthy"
	ReasonRollingOut         = "RollingOut"
	ReasonAllUpdated         = "AllUpdated"
	ReasonGhostBrokersFound  = "GhostBrokersFound"
	ReasonNoGhostBrokers     = "NoGhostBrokers"
)

// lifecycle is the part of the next status that the rollout, the health gate and the ghost
// broker check decide.
type lifecycle struct {
	Restart         *v1alpha1.BrokerRestart
	UpdateRevision  string
	UpdatedReplicas int32
	// Ghosts is what the admin API showed this reconcile; GhostsKnown is false when it was not
	// asked, and the recorded ghosts stay as they are.
	Ghosts      []int32
	GhostsKnown bool
}

// nextStatus is the status after a step: the step's changes to C and B, the observed
// generation, the ready pods and the three conditions. A step that waits on the admin API
// changes nothing but the Degraded condition.
func nextStatus(bc *v1alpha1.BrokerCluster, s step, current int32, decommissioning *int32, readyReplicas int32, lc lifecycle, adminErr error, now time.Time) v1alpha1.BrokerClusterStatus {
	st := *bc.Status.DeepCopy()
	at := metav1.NewTime(now)
	if s.Kind == stepWaitAdmin {
		reason, message := adminProblem(adminErr)
		if adminErr == nil {
			message = s.Reason // health_overview did not answer: the step says what waits on it
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: v1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: reason,
			Message: message, ObservedGeneration: bc.Generation, LastTransitionTime: at,
		})
		return st
	}
	st.ObservedGeneration = bc.Generation
	st.CurrentReplicas = current
	st.DecommissioningBroker = decommissioning
	st.ReadyReplicas = readyReplicas
	st.Selector = labels.SelectorFromSet(selectorLabels(bc)).String()
	st.Restart = lc.Restart
	st.UpdateRevision = lc.UpdateRevision
	st.UpdatedReplicas = lc.UpdatedReplicas
	if lc.GhostsKnown {
		st.GhostBrokers = lc.Ghosts
	}
	scaling := scalingCondition(bc.Name, s, current, bc.Spec.Replicas, decommissioning)
	ready := readyCondition(scaling, readyReplicas, bc.Spec.Replicas)
	degraded := degradedCondition(s, adminErr)
	for _, c := range append([]metav1.Condition{ready, scaling, degraded}, lifecycleConditions(s, lc, current)...) {
		c.ObservedGeneration = bc.Generation
		c.LastTransitionTime = at
		meta.SetStatusCondition(&st.Conditions, c)
	}
	return st
}

// degradedCondition says whether the operator can make progress after step s, and if not why.
func degradedCondition(s step, adminErr error) metav1.Condition {
	degraded := metav1.Condition{Type: v1alpha1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: ReasonAsExpected, Message: "the operator can make progress"}
	if adminErr != nil && waitsOnAdmin(adminErr) {
		// A step that did not need the admin API went ahead (a scale-up); the problem stays shown.
		degraded.Status = metav1.ConditionTrue
		degraded.Reason, degraded.Message = adminProblem(adminErr)
	}
	if s.Kind == stepWaitBrokerID {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonBrokerIDUnknown, s.Reason
	}
	if s.Kind == stepWaitHealthy {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonClusterUnhealthy, s.Reason
	}
	return degraded
}

// scalingCondition says whether the brokers (C) are moving towards spec.replicas (D) after step
// s, in words. A scale-up that waits for what a broker that left leaves behind says so.
func scalingCondition(name string, s step, current, desired int32, decommissioning *int32) metav1.Condition {
	scaling := metav1.Condition{Type: v1alpha1.ConditionScaling, Status: metav1.ConditionFalse, Reason: ReasonSteady,
		Message: brokerCount(current) + ", as desired"}
	switch {
	case decommissioning != nil && current > desired:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("decommissioning broker %d (pod %s-%d), scaling down from %d to %s", *decommissioning, name, current-1, current, brokerCount(desired))
	case decommissioning != nil:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("cancelling the decommission of broker %d (pod %s-%d): spec.replicas went back up to %d", *decommissioning, name, current-1, desired)
	case current > desired:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("scaling down from %d to %s", current, brokerCount(desired))
	case current < desired && s.Kind == stepWaitPodGone:
		scaling.Status, scaling.Reason, scaling.Message = metav1.ConditionTrue, ReasonScalingUp, s.Reason
	case current < desired:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingUp
		scaling.Message = fmt.Sprintf("scaling up from %d to %s", current, brokerCount(desired))
	}
	return scaling
}

// readyCondition is true once D brokers are ready and no scaling is under way.
func readyCondition(scaling metav1.Condition, readyReplicas, desired int32) metav1.Condition {
	ready := metav1.Condition{Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonBrokersNotReady,
		Message: fmt.Sprintf("%d of %d brokers ready", readyReplicas, desired)}
	switch {
	case scaling.Status == metav1.ConditionTrue:
		ready.Reason = scaling.Reason
	case readyReplicas >= desired:
		ready.Status, ready.Reason = metav1.ConditionTrue, ReasonAllBrokersReady
	}
	return ready
}

// lifecycleConditions are the Restarting condition and, when the admin API was asked, the
// GhostBrokers condition. A rollout that waits for the brokers' pods says so in the Restarting
// condition.
func lifecycleConditions(s step, lc lifecycle, current int32) []metav1.Condition {
	restarting := metav1.Condition{Type: v1alpha1.ConditionRestarting, Status: metav1.ConditionFalse, Reason: ReasonAllUpdated,
		Message: fmt.Sprintf("%d of %s run the current pod template", lc.UpdatedReplicas, brokerCount(current))}
	switch r := lc.Restart; {
	case r != nil:
		restarting.Status, restarting.Reason = metav1.ConditionTrue, ReasonRollingOut
		restarting.Message = fmt.Sprintf("restarting broker %d (pod %s) to apply a change that needs a restart: %s; %d of %s updated",
			r.NodeID, r.Pod, restartStepWords(r.Step), lc.UpdatedReplicas, brokerCount(current))
	case lc.UpdatedReplicas < current && s.Kind == stepWaitPods:
		restarting.Status, restarting.Reason, restarting.Message = metav1.ConditionTrue, ReasonRollingOut, s.Reason
	case lc.UpdatedReplicas < current:
		restarting.Status, restarting.Reason = metav1.ConditionTrue, ReasonRollingOut
		restarting.Message = fmt.Sprintf("rolling out a change that needs a restart: %d of %s updated", lc.UpdatedReplicas, brokerCount(current))
	}
	out := []metav1.Condition{restarting}
	if lc.GhostsKnown {
		ghosts := metav1.Condition{Type: v1alpha1.ConditionGhostBrokers, Status: metav1.ConditionFalse, Reason: ReasonNoGhostBrokers,
			Message: "every active broker is alive or run by a pod of this cluster"}
		if len(lc.Ghosts) > 0 {
			ghosts.Status, ghosts.Reason = metav1.ConditionTrue, ReasonGhostBrokersFound
			ghosts.Message = fmt.Sprintf("brokers %s are active members but not alive, and no pod of this cluster runs them", ghostList(lc.Ghosts))
		}
		out = append(out, ghosts)
	}
	return out
}

// statusPatch is a JSON merge patch for the status subresource that sets the fields of next
// that differ from old; nil when none does. A non-empty resourceVersion is added as a
// precondition: the apiserver refuses the patch with a Conflict if the object has moved on.
func statusPatch(old, next v1alpha1.BrokerClusterStatus, resourceVersion string) []byte {
	fields := map[string]any{}
	if old.ObservedGeneration != next.ObservedGeneration {
		fields["observedGeneration"] = next.ObservedGeneration
	}
	if old.CurrentReplicas != next.CurrentReplicas {
		fields["currentReplicas"] = next.CurrentReplicas
	}
	if old.ReadyReplicas != next.ReadyReplicas {
		fields["readyReplicas"] = next.ReadyReplicas
	}
	if !equality.Semantic.DeepEqual(old.DecommissioningBroker, next.DecommissioningBroker) {
		fields["decommissioningBroker"] = next.DecommissioningBroker // nil clears it
	}
	if old.Selector != next.Selector {
		fields["selector"] = next.Selector
	}
	if !equality.Semantic.DeepEqual(old.Restart, next.Restart) {
		fields["restart"] = next.Restart // nil clears it
	}
	if old.UpdateRevision != next.UpdateRevision {
		fields["updateRevision"] = next.UpdateRevision
	}
	if old.UpdatedReplicas != next.UpdatedReplicas {
		fields["updatedReplicas"] = next.UpdatedReplicas
	}
	if !equality.Semantic.DeepEqual(old.GhostBrokers, next.GhostBrokers) {
		fields["ghostBrokers"] = next.GhostBrokers
	}
	if !equality.Semantic.DeepEqual(old.Conditions, next.Conditions) {
		fields["conditions"] = next.Conditions
	}
	if len(fields) == 0 {
		return nil
	}
	patch := map[string]any{"status": fields}
	if resourceVersion != "" {
		patch["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	}
	data, err := json.Marshal(patch)
	if err != nil {
		panic(fmt.Sprintf("controller: marshal status patch: %v", err)) // plain values always marshal
	}
	return data
}

// eventType is Warning for steps that wait on something broken, Normal otherwise.
func eventType(k stepKind) string {
	if k == stepWaitAdmin || k == stepWaitBrokerID || k == stepWaitHealthy || k == stepSuspendRestart {
		return corev1.EventTypeWarning
	}
	return corev1.EventTypeNormal
}
