package step

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	// ReasonBrokerPodCannotStart: a broker's pod cannot come up by itself (an image that cannot
	// be pulled, a crash loop, unschedulable) and the operator cannot replace it.
	ReasonBrokerPodCannotStart = "BrokerPodCannotStart"
	// ReasonBrokerRecoveryStalled: a restarted broker has not reclaimed its load within
	// spec.rollout.recoveryTimeout; the rollout still waits for it.
	ReasonBrokerRecoveryStalled = "BrokerRecoveryStalled"
	// ReasonBrokerPodStuckTerminating: the pod a restart deleted is still there well past its
	// grace period (its node down, say); the restart waits for it.
	ReasonBrokerPodStuckTerminating = "BrokerPodStuckTerminating"
	ReasonRollingOut                = "RollingOut"
	ReasonAllUpdated                = "AllUpdated"
	ReasonGhostBrokersFound         = "GhostBrokersFound"
	ReasonNoGhostBrokers            = "NoGhostBrokers"
	// ReasonDrainStalled: a decommission has made no progress for several polls, or Redpanda
	// reports partitions it cannot place (internal/brokers/drain.go).
	ReasonDrainStalled = "DrainStalled"
	// The Secrets spec.adminAPI names (internal/brokers/security.go).
	ReasonAdminSecretMissing   = "AdminAPISecretMissing"
	ReasonAdminSecretInvalid   = "AdminAPISecretInvalid"
	ReasonAdminSecretForbidden = "AdminAPISecretForbidden"
	// ReasonUnsupportedVersionChange: the rollout would change the brokers' version off
	// Redpanda's upgrade path (upgrade.go); it is held, nothing restarted, until spec.image
	// changes.
	ReasonUnsupportedVersionChange = "UnsupportedVersionChange"
	// ReasonSASLWaitsForSuperuser: the rollout would turn Kafka SASL on before the superuser
	// of spec.adminAPI.auth is in place; no broker restarts until it is (HoldForSuperuser).
	ReasonSASLWaitsForSuperuser = "SASLWaitsForSuperuser"
	// ReasonScaleDownWouldNotFit: the brokers that would remain after the scale-down cannot hold
	// the data (preflight.go); it is held, nothing decommissioned, until spec.replicas or the
	// topics change.
	ReasonScaleDownWouldNotFit = "ScaleDownWouldNotFit"
	// ReasonInvalidMaintenanceWindow: spec.maintenanceWindows names a time zone the operator
	// does not know (windows.go); every step that waits for a window is held until it is fixed.
	ReasonInvalidMaintenanceWindow = "InvalidMaintenanceWindow"
)

// AdminProblem is why the brokers' admin API could not be used, as the brokers' view classifies
// an error (internal/brokers): a Degraded reason, a sentence, and whether the cluster waits on it
// (Waits: the API did not answer, refused the credentials or the TLS handshake, or a Secret it
// needs is unusable). The zero value is no problem.
type AdminProblem struct {
	Reason, Message string
	Waits           bool
}

// Write is what a step's status write is made of, besides the step itself.
type Write struct {
	Current         int32
	Decommissioning *int32
	ReadyReplicas   int32
	Lifecycle       Lifecycle
	// Admin is the admin API's problem this reconcile, if any.
	Admin AdminProblem
	// Selector is the label selector of the cluster's pods, for status.selector.
	Selector string
	// MembershipReadFrom is where the last fresh fact check read its membership; "" keeps
	// what status says.
	MembershipReadFrom string
	// NextWindow is when the next maintenance window opens, for a step that waits for it.
	NextWindow time.Time
	// LostNodes is status.brokersOnLostNodes (LostStatus); LostNodesKnown is false when the
	// pods could not all be looked at, and status keeps what it said.
	LostNodes      []v1alpha1.BrokerOnLostNode
	LostNodesKnown bool
}

// lifecycle is the part of the next status that the rollout, the health gate and the ghost
// broker check decide.
type Lifecycle struct {
	Restart         *v1alpha1.BrokerRestart
	UpdateRevision  string
	UpdatedReplicas int32
	// Ghosts is what the admin API showed this reconcile; GhostsKnown is false when it was not
	// asked, and the recorded ghosts stay as they are.
	Ghosts      []int32
	GhostsKnown bool
	// RestartChange names what the restart under way applies (changeOf), "" when not known.
	RestartChange string
	// Preview is the disruption preview once the step is written (preview.go); nil leaves
	// status.disruptionPreview as it is.
	Preview *v1alpha1.DisruptionPreview
}

// nextStatus is the status after a step: the step's changes to C and B, the observed
// generation, the ready pods and the three conditions. A step that waits on the admin API
// changes nothing but the Degraded condition.
func NextStatus(bc *v1alpha1.BrokerCluster, s Step, w Write, now time.Time) v1alpha1.BrokerClusterStatus {
	st := *bc.Status.DeepCopy()
	at := metav1.NewTime(now)
	resumed(&st, bc.Generation, at)
	current, decommissioning, readyReplicas, lc := w.Current, w.Decommissioning, w.ReadyReplicas, w.Lifecycle
	if s.Kind == WaitForAdminAPI {
		reason, message := w.Admin.Reason, w.Admin.Message
		if reason == "" {
			// health_overview did not answer: the step says what waits on it
			reason, message = ReasonAdminAPIUnavailable, s.Reason
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: v1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: reason,
			Message: message, ObservedGeneration: bc.Generation, LastTransitionTime: at,
		})
		return st
	}
	st.ObservedGeneration = bc.Generation
	if !HasPools(bc) {
		st.Pools, st.PoolsSummary = nil, "" // what a cluster with pools wrote, once it has none
	}
	st.CurrentReplicas = current
	st.DecommissioningBroker = decommissioning
	st.ReadyReplicas = readyReplicas
	st.Selector = w.Selector
	if w.MembershipReadFrom != "" {
		st.MembershipReadFrom = w.MembershipReadFrom
	}
	st.NextMaintenanceWindow = nil
	if s.Kind == WaitForMaintenanceWindow && !w.NextWindow.IsZero() {
		next := metav1.NewTime(w.NextWindow)
		st.NextMaintenanceWindow = &next
	}
	st.Restart = lc.Restart
	if lc.Preview != nil {
		st.DisruptionPreview = lc.Preview
	}
	st.UpdateRevision = lc.UpdateRevision
	st.UpdatedReplicas = lc.UpdatedReplicas
	if lc.GhostsKnown {
		st.GhostBrokers = lc.Ghosts
	}
	if w.LostNodesKnown {
		st.BrokersOnLostNodes = w.LostNodes
	}
	scaling := scalingCondition(bc.Name, s, current, bc.Spec.Replicas, decommissioning)
	ready := readyCondition(scaling, readyReplicas, bc.Spec.Replicas)
	degraded := degradedCondition(s, w.Admin)
	conditions := append([]metav1.Condition{ready, scaling, degraded}, lifecycleConditions(s, lc, current)...)
	if lost := lostCondition(st.Conditions, st.BrokersOnLostNodes); lost != nil {
		conditions = append(conditions, *lost)
	}
	for _, c := range conditions {
		c.ObservedGeneration = bc.Generation
		c.LastTransitionTime = at
		meta.SetStatusCondition(&st.Conditions, c)
	}
	return st
}

// degradedCondition says whether the operator can make progress after step s, and if not why.
func degradedCondition(s Step, p AdminProblem) metav1.Condition {
	degraded := metav1.Condition{Type: v1alpha1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: ReasonAsExpected, Message: "the operator can make progress"}
	if p.Waits {
		// A step that did not need the admin API went ahead (a scale-up); the problem stays shown.
		degraded.Status = metav1.ConditionTrue
		degraded.Reason, degraded.Message = p.Reason, p.Message
	}
	if s.Kind == WaitForBrokerID {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonBrokerIDUnknown, s.Reason
	}
	if s.Kind == WaitForHealthyCluster {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonClusterUnhealthy, s.Reason
	}
	if s.Kind == WaitForRecovery && s.Overdue {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonBrokerRecoveryStalled, s.Reason
	}
	if s.Kind == WaitForRestart && s.Overdue {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonBrokerPodStuckTerminating, s.Reason
	}
	if s.Kind == HoldScaleDown {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonScaleDownWouldNotFit, s.Reason
	}
	if s.Kind == HoldVersionChange {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonUnsupportedVersionChange, s.Reason
	}
	if s.Kind == HoldForSuperuser {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonSASLWaitsForSuperuser, s.Reason
	}
	if s.Kind == WaitForMaintenanceWindow && s.WindowInvalid {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonInvalidMaintenanceWindow, s.Reason
	}
	if s.Kind == WaitForStuckPod || s.Kind == ReleaseMaintenance {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonBrokerPodCannotStart, s.Reason
	}
	return degraded
}

// scalingCondition says whether the brokers (C) are moving towards spec.replicas (D) after step
// s, in words. A scale-up that waits for what a broker that left leaves behind says so.
func scalingCondition(name string, s Step, current, desired int32, decommissioning *int32) metav1.Condition {
	scaling := metav1.Condition{Type: v1alpha1.ConditionScaling, Status: metav1.ConditionFalse, Reason: ReasonSteady,
		Message: BrokerCount(current) + ", as desired"}
	switch {
	case decommissioning != nil && current > desired:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("decommissioning broker %d (pod %s-%d), scaling down from %d to %s", *decommissioning, name, current-1, current, BrokerCount(desired))
	case decommissioning != nil:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("cancelling the decommission of broker %d (pod %s-%d): spec.replicas went back up to %d", *decommissioning, name, current-1, desired)
	case current > desired && s.Kind == WaitForMaintenanceWindow:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("scaling down from %d to %s: %s", current, BrokerCount(desired), s.Reason)
	case current > desired && s.Kind == HoldScaleDown:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("the scale-down from %d to %s is held, nothing decommissioned: the brokers that would remain cannot hold the data (see the Degraded condition)", current, BrokerCount(desired))
	case current > desired:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingDown
		scaling.Message = fmt.Sprintf("scaling down from %d to %s", current, BrokerCount(desired))
	case current < desired && s.Kind == WaitForRemovedPod:
		scaling.Status, scaling.Reason, scaling.Message = metav1.ConditionTrue, ReasonScalingUp, s.Reason
	case current < desired:
		scaling.Status, scaling.Reason = metav1.ConditionTrue, ReasonScalingUp
		scaling.Message = fmt.Sprintf("scaling up from %d to %s", current, BrokerCount(desired))
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
func lifecycleConditions(s Step, lc Lifecycle, current int32) []metav1.Condition {
	restarting := metav1.Condition{Type: v1alpha1.ConditionRestarting, Status: metav1.ConditionFalse, Reason: ReasonAllUpdated,
		Message: fmt.Sprintf("%d of %s run the current pod template", lc.UpdatedReplicas, BrokerCount(current))}
	switch r := lc.Restart; {
	case r != nil:
		restarting.Status, restarting.Reason = metav1.ConditionTrue, ReasonRollingOut
		change := ""
		if lc.RestartChange != "" {
			change = " (" + lc.RestartChange + ")"
		}
		restarting.Message = fmt.Sprintf("restarting broker %d (pod %s) to apply a change that needs a restart%s: %s; %d of %s updated",
			r.NodeID, r.Pod, change, restartStepWords(r.Step), lc.UpdatedReplicas, BrokerCount(current))
	case lc.UpdatedReplicas < current && (s.Kind == WaitForReadyBrokers || s.Kind == HoldVersionChange || s.Kind == HoldForSuperuser || s.Kind == WaitForMaintenanceWindow):
		restarting.Status, restarting.Reason, restarting.Message = metav1.ConditionTrue, ReasonRollingOut, s.Reason
	case lc.UpdatedReplicas < current:
		restarting.Status, restarting.Reason = metav1.ConditionTrue, ReasonRollingOut
		restarting.Message = fmt.Sprintf("rolling out a change that needs a restart: %d of %s updated", lc.UpdatedReplicas, BrokerCount(current))
	}
	out := []metav1.Condition{restarting}
	if lc.GhostsKnown {
		ghosts := metav1.Condition{Type: v1alpha1.ConditionGhostBrokers, Status: metav1.ConditionFalse, Reason: ReasonNoGhostBrokers,
			Message: "every active broker is alive or run by a pod of this cluster"}
		if len(lc.Ghosts) > 0 {
			ghosts.Status, ghosts.Reason = metav1.ConditionTrue, ReasonGhostBrokersFound
			ghosts.Message = fmt.Sprintf("brokers %s are active members but not alive, and no pod of this cluster runs them", GhostList(lc.Ghosts))
		}
		out = append(out, ghosts)
	}
	return out
}

// statusPatch is a JSON merge patch for the status subresource that sets the fields of next
// that differ from old; nil when none does. A non-empty resourceVersion is added as a
// precondition: the apiserver refuses the patch with a Conflict if the object has moved on.
func StatusPatch(old, next v1alpha1.BrokerClusterStatus, resourceVersion string) []byte {
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
	if !equality.Semantic.DeepEqual(old.DisruptionPreview, next.DisruptionPreview) {
		fields["disruptionPreview"] = previewFields(next.DisruptionPreview)
	}
	if !equality.Semantic.DeepEqual(old.BrokersOnLostNodes, next.BrokersOnLostNodes) {
		fields["brokersOnLostNodes"] = next.BrokersOnLostNodes
	}
	if old.MembershipReadFrom != next.MembershipReadFrom {
		fields["membershipReadFrom"] = next.MembershipReadFrom
	}
	if !equality.Semantic.DeepEqual(old.NextMaintenanceWindow, next.NextMaintenanceWindow) {
		fields["nextMaintenanceWindow"] = next.NextMaintenanceWindow // nil clears it
	}
	if !equality.Semantic.DeepEqual(old.Conditions, next.Conditions) {
		fields["conditions"] = next.Conditions
	}
	if !equality.Semantic.DeepEqual(old.Pools, next.Pools) {
		fields["pools"] = next.Pools // a merge patch replaces a list whole
	}
	if old.PoolsSummary != next.PoolsSummary {
		fields["poolsSummary"] = next.PoolsSummary
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
func EventType(k Kind) string {
	if k == WaitForAdminAPI || k == WaitForBrokerID || k == WaitForHealthyCluster || k == SuspendRestart || k == WaitForStuckPod || k == ReplaceStuckPod || k == WaitForRecovery || k == ReleaseMaintenance || k == ClearLeakedMaintenance || k == HoldVersionChange || k == HoldForSuperuser || k == HoldScaleDown || k == RecoverLostBroker {
		return corev1.EventTypeWarning
	}
	return corev1.EventTypeNormal
}

// GhostList names ghost brokers for messages: "3, 7".
func GhostList(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ", ")
}

// Change is what step s writes: C, B, the rollout's record and the disruption preview.
func Change(bc *v1alpha1.BrokerCluster, s Step, obs Observation, ghostsKnown bool) (int32, *int32, Lifecycle) {
	current, decommissioning := bc.Status.CurrentReplicas, bc.Status.DecommissioningBroker
	lc := Lifecycle{Restart: bc.Status.Restart, UpdateRevision: obs.Rollout.Revision, UpdatedReplicas: obs.Rollout.Updated,
		Ghosts: obs.Ghosts, GhostsKnown: ghostsKnown}
	switch s.Kind {
	case ScaleUp:
		current = bc.Spec.Replicas
	case StartDecommission, AdoptDrain:
		decommissioning = s.Broker
	case SkipAbsentBroker:
		current--
	case FinishDecommission:
		current, decommissioning = current-1, nil
	case CancelDecommission, HoldScaleDown:
		// Recommission keeps B: Redpanda refuses a recommission late in a drain (400, invalid
		// state transition), so B is cleared only once the admin API lists the broker as active
		// again (CancelDecommission) or it has left (FinishDecommission).
		decommissioning = nil
	case WaitForMaintenanceWindow:
		// Held before its first call: a decommission or restart recorded but not begun is
		// dropped (its broker is an active member, its maintenance mode off), so that nothing
		// waits behind it; the next window picks again.
		decommissioning = nil
		if r := lc.Restart; r != nil && r.Step == v1alpha1.RestartDraining {
			lc.Restart = nil
		}
	case StartRestart, RestartSingleBroker:
		lc.Restart = s.Restart
	case RestartPod, SuspendRestart, AdoptReplacedPod:
		r := *bc.Status.Restart
		r.Step = v1alpha1.RestartRestarting
		if s.Kind == SuspendRestart {
			r.Step = v1alpha1.RestartDraining
		}
		lc.Restart = &r
	case FinishRestart:
		lc.Restart = nil
	}
	if lc.Restart != nil {
		lc.RestartChange = changeOf(obs, lc.Restart.Ordinal)
	}
	lc.Preview = Preview(bc, obs, Recorded{Current: current, Decommissioning: decommissioning, Restart: lc.Restart})
	return current, decommissioning, lc
}
