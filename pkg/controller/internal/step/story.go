package step

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Events tell a BrokerCluster's story: an event when something happens, none for a poll. A step
// that acts (starts or finishes a decommission or a restart, scales up, makes a call) is an
// event each time it is taken: its status write, guarded by the resourceVersion precondition,
// or its call happens once. A wait that lasts is a condition, and its event comes when the
// condition it shows first appears; the waits that a step began (a drain, leadership moving
// away, a restarting pod) were told by that step. When the Degraded condition a wait set clears
// or changes reason, a Normal event with the wait's name says it has ended.
//
// Whether a step is news is judged from the status it read and the status it wrote, not from
// memory: a new leader, or a reconcile that retries after an error, does not tell a wait again.
// The log still has one line per decision at -v=2, and broker_operator_decisions_total counts
// every decision, polls included.

// Event is one event a step tells: its type (Normal or Warning), reason and message.
type Event struct {
	Type, Reason, Message string
}

// Events are the events of step s, which took the BrokerCluster's status from before to after:
// the end of a wait, then the step itself when it is news.
func Events(s Step, before, after *v1alpha1.BrokerClusterStatus) []Event {
	var out []Event
	if kind, msg, ok := WaitEnded(before, after); ok {
		out = append(out, Event{Type: corev1.EventTypeNormal, Reason: string(kind), Message: msg})
	}
	out = append(out, LostEvents(before.BrokersOnLostNodes, after.BrokersOnLostNodes)...)
	if IsNews(s, before, after) {
		typ := EventType(s.Kind)
		if s.Overdue {
			typ = corev1.EventTypeWarning // a wait that has lasted longer than it should
		}
		out = append(out, Event{Type: typ, Reason: string(s.Kind), Message: s.Reason})
	}
	return out
}

// isNews reports whether step s is something that happened, rather than one more poll of a wait.
func IsNews(s Step, before, after *v1alpha1.BrokerClusterStatus) bool {
	switch s.Kind {
	case None:
		return false
	case WaitForRestart:
		// Begun by RestartPod, RestartSingleBroker or DeletePod, which were told; a pod stuck
		// terminating is told once.
		return s.Overdue && ConditionBegan(before, after, v1alpha1.ConditionDegraded)
	case WaitForDrain, WaitForLeadershipDrain:
		// Begun by StartDecommission, AdoptDrain or Decommission; StartRestart or
		// EnableMaintenance, which were told.
		return false
	case WaitForAdminAPI, WaitForBrokerID, WaitForHealthyCluster, WaitForStuckPod, WaitForRecovery, HoldScaleDown, HoldForSuperuser:
		return ConditionBegan(before, after, v1alpha1.ConditionDegraded)
	case HoldVersionChange:
		// A hold names the versions: another spec.image off the path is another hold.
		return ConditionBegan(before, after, v1alpha1.ConditionDegraded) || messageChanged(before, after, v1alpha1.ConditionDegraded)
	case WaitForMaintenanceWindow:
		// Told once a window: when the wait begins, and again for each window it waits for.
		return ConditionBegan(before, after, v1alpha1.ConditionDegraded) ||
			(after.NextMaintenanceWindow != nil && !equality.Semantic.DeepEqual(before.NextMaintenanceWindow, after.NextMaintenanceWindow))
	case WaitForRemovedPod:
		return messageChanged(before, after, v1alpha1.ConditionScaling)
	case WaitForReadyBrokers:
		return messageChanged(before, after, v1alpha1.ConditionRestarting)
	case WaitForJoiningBrokers:
		return messageChanged(before, after, v1alpha1.ConditionScaling)
	case ScaleUp, StartDecommission, AdoptDrain, SkipAbsentBroker, Decommission, FinishDecommission,
		Recommission, CancelDecommission, StartRestart, RestartSingleBroker, EnableMaintenance,
		RestartPod, DeletePod, SuspendRestart, FinishRestart, AdoptReplacedPod, ReplaceStuckPod, ReleaseMaintenance, ClearLeakedMaintenance, RecoverLostBroker:
		return true
	}
	// A step this list does not name is news when it changes the story status tells.
	return storyChanged(before, after)
}

// conditionBegan reports whether condition t is True after, and was not True with the same
// reason before. Its message may change while it lasts (a count, an error's text): that is
// not news.
func ConditionBegan(before, after *v1alpha1.BrokerClusterStatus, t string) bool {
	now := meta.FindStatusCondition(after.Conditions, t)
	if now == nil || now.Status != metav1.ConditionTrue {
		return false
	}
	was := meta.FindStatusCondition(before.Conditions, t)
	return was == nil || was.Status != metav1.ConditionTrue || was.Reason != now.Reason
}

// messageChanged reports whether condition t says something else after than before.
func messageChanged(before, after *v1alpha1.BrokerClusterStatus, t string) bool {
	was, now := meta.FindStatusCondition(before.Conditions, t), meta.FindStatusCondition(after.Conditions, t)
	return now != nil && (was == nil || was.Message != now.Message)
}

// storyChanged reports whether the replicas, the broker being decommissioned, the restart under
// way or a condition's status or reason changed.
func storyChanged(before, after *v1alpha1.BrokerClusterStatus) bool {
	if before.CurrentReplicas != after.CurrentReplicas || OptionalID(before.DecommissioningBroker) != OptionalID(after.DecommissioningBroker) ||
		fmt.Sprint(before.Restart) != fmt.Sprint(after.Restart) {
		return true
	}
	for _, now := range after.Conditions {
		was := meta.FindStatusCondition(before.Conditions, now.Type)
		if was == nil || was.Status != now.Status || was.Reason != now.Reason {
			return true
		}
	}
	return false
}

// endedWaits maps each reason of a Degraded condition a wait sets to that wait, and what its
// end means.
var endedWaits = map[string]struct {
	wait Kind
	says string
}{
	ReasonClusterUnhealthy:          {WaitForHealthyCluster, "no longer waiting for a healthy cluster: the next step may go ahead"},
	ReasonBrokerIDUnknown:           {WaitForBrokerID, "no longer waiting to learn which broker a pod runs"},
	ReasonBrokerPodCannotStart:      {WaitForStuckPod, "no longer waiting for a broker pod that could not start"},
	ReasonBrokerRecoveryStalled:     {WaitForRecovery, "no longer waiting for a restarted broker to reclaim its load"},
	ReasonBrokerPodStuckTerminating: {WaitForRestart, "the restarted broker's old pod is gone: the restart goes on"},
	ReasonDrainStalled:              {WaitForDrain, "the drain is no longer stalled"},
	ReasonUnsupportedVersionChange:  {HoldVersionChange, "the rollout is no longer held: spec.image no longer changes the brokers' version off Redpanda's upgrade path"},
	ReasonSASLWaitsForSuperuser:     {HoldForSuperuser, "the rollout is no longer held: the superuser is in place, or no restart turns Kafka SASL on"},
	ReasonScaleDownWouldNotFit:      {HoldScaleDown, "the scale-down is no longer held: the brokers that would remain can hold the data, or spec.replicas went back up"},
	ReasonAdminAPIUnavailable:       {WaitForAdminAPI, "no longer waiting for the brokers' admin API"},
	ReasonAdminAPIUnauthorized:      {WaitForAdminAPI, "no longer waiting for the brokers' admin API: the operator's credentials are no longer refused"},
	ReasonAdminAPITLSRefused:        {WaitForAdminAPI, "no longer waiting for the brokers' admin API: the TLS handshake succeeds again"},
	ReasonAdminAPIForbidden:         {WaitForAdminAPI, "no longer waiting for the brokers' admin API: the operator's user is no longer refused"},
	ReasonAdminSecretMissing:        {WaitForAdminAPI, "no longer waiting for the brokers' admin API: the Secret spec.adminAPI names is there"},
	ReasonAdminSecretInvalid:        {WaitForAdminAPI, "no longer waiting for the brokers' admin API: the Secret spec.adminAPI names is usable"},
	ReasonAdminSecretForbidden:      {WaitForAdminAPI, "no longer waiting for the brokers' admin API: the operator may read the Secret spec.adminAPI names"},
}

// waitEnded reports the wait that ended between before and after: the Degraded condition one of
// them set is no longer True with that reason.
func WaitEnded(before, after *v1alpha1.BrokerClusterStatus) (Kind, string, bool) {
	was := meta.FindStatusCondition(before.Conditions, v1alpha1.ConditionDegraded)
	if was == nil || was.Status != metav1.ConditionTrue {
		return "", "", false
	}
	ended, ok := endedWaits[was.Reason]
	if !ok {
		return "", "", false
	}
	if now := meta.FindStatusCondition(after.Conditions, v1alpha1.ConditionDegraded); now != nil && now.Status == metav1.ConditionTrue && now.Reason == was.Reason {
		return "", "", false
	}
	return ended.wait, ended.says, true
}
