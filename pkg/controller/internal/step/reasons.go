package step

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// The reasons decisions give, for the log, events and conditions: sentences an on-call engineer
// reads without the source. They name a broker by its node ID and its pod by name, and say what
// the operator does and why, with the counts that matter (brokers now and desired, brokers
// updated). A restart says "a change that needs a restart": the rollout restarts a broker for
// whatever its pod or broker waits for, not only a new pod template. Pure, like decide.

const AdminSilent = "the brokers' admin API did not answer"

// podName is the name of the cluster's pod at ordinal.
func podName(o Observation, ordinal int32) string { return fmt.Sprintf("%s-%d", o.Cluster, ordinal) }

// brokerOnPod names a broker and its pod: "broker 104 (pod example-4)", or "the broker of pod
// example-4" when its ID is not known.
func brokerOnPod(id int32, idKnown bool, pod string) string {
	if !idKnown {
		return "the broker of pod " + pod
	}
	return fmt.Sprintf("broker %d (pod %s)", id, pod)
}

// goingBroker names the broker a scale-down acts on: B while it is set, else the next to go.
// Either runs on the pod of the highest ordinal, C-1.
func goingBroker(o Observation) string {
	pod := podName(o, o.Current-1)
	if o.Decommissioning != nil {
		return brokerOnPod(*o.Decommissioning, true, pod)
	}
	return brokerOnPod(o.Victim.ID, o.Victim.IDKnown, pod)
}

func BrokerCount(n int32) string {
	if n == 1 {
		return "1 broker"
	}
	return fmt.Sprintf("%d brokers", n)
}

// brokersRemain says how many brokers remain, the verb agreeing with the count.
func brokersRemain(n int32) string {
	if n == 1 {
		return "1 broker remains"
	}
	return BrokerCount(n) + " remain"
}

// scaleReason is the reason of a scaling step, taken by row t.
func scaleReason(t Transition, o Observation) string {
	b := goingBroker(o)
	down := fmt.Sprintf("scaling down from %d to %s", o.Current, BrokerCount(o.Desired))
	switch t.Then {
	case ScaleUp:
		return fmt.Sprintf("scaling up from %d to %s", o.Current, BrokerCount(o.Desired))
	case WaitForRemovedPod:
		return fmt.Sprintf("scaling up from %d to %s waits until the pod and volume claim of a broker that left the cluster are gone",
			o.Current, BrokerCount(o.Desired))
	case StartDecommission:
		if why := o.Placement.Unchecked(); why != "" {
			return fmt.Sprintf("decommissioning %s, %s; %s", b, down, why)
		}
		return fmt.Sprintf("decommissioning %s, %s", b, down)
	case HoldScaleDown:
		return fmt.Sprintf("the scale-down from %d to %s is held, nothing decommissioned: %s", o.Current, BrokerCount(o.Desired), o.Placement.Refused())
	case AdoptDrain:
		return fmt.Sprintf("%s is already draining: following its decommission, %s", b, down)
	case SkipAbsentBroker:
		return fmt.Sprintf("%s has already left the cluster, so it needs no decommission: %s, %d desired", b, brokersRemain(o.Current-1), o.Desired)
	case Decommission:
		return fmt.Sprintf("asking Redpanda again to decommission %s: it is still an active member", b)
	case WaitForDrain:
		return fmt.Sprintf("waiting while %s moves its partition replicas to other brokers", b)
	case FinishDecommission:
		return fmt.Sprintf("%s has left the cluster: its decommission is finished, %s, %d desired", b, brokersRemain(o.Current-1), o.Desired)
	case Recommission:
		return fmt.Sprintf("recommissioning %s: spec.replicas went back up to %d while it was draining", b, o.Desired)
	case CancelDecommission:
		return fmt.Sprintf("the decommission of %s is cancelled: spec.replicas went back up to %d and the broker is an active member", b, o.Desired)
	case WaitForBrokerID:
		return fmt.Sprintf("%s waits: cannot tell which broker pod %s runs (its /v1/node_config did not answer and no broker advertises the pod's name); unknown is not absent, so its broker is not skipped",
			down, podName(o, o.Current-1))
	case WaitForHealthyCluster:
		return fmt.Sprintf("the health gate holds back decommissioning %s, %s: %s", b, down, o.Health)
	case WaitForAdminAPI:
		switch t.State {
		case "Decommissioning":
			return fmt.Sprintf("cannot tell how the decommission of %s goes: %s", b, AdminSilent)
		case "ScalingDown":
			return fmt.Sprintf("cannot tell which broker to decommission next, %s: %s", down, AdminSilent)
		}
		return AdminSilent
	}
	return t.When
}

// restartsLeft says how many brokers the rollout has still to restart: those on pods of an
// older template and those that wait for a restart for a cluster property, which the template
// count alone would report as up to date.
func restartsLeft(o Observation) string {
	return fmt.Sprintf("%d of %d brokers still to restart", o.Rollout.Outdated, o.Current)
}

// restartReason is the reason of a step of the restart under way, R, taken by row t.
func restartReason(t Transition, o Observation) string {
	r := o.Rollout.Restart
	b := brokerOnPod(r.NodeID, true, r.Pod)
	updated := restartsLeft(o)
	switch t.Then {
	case WaitForAdminAPI:
		return fmt.Sprintf("cannot tell how the restart of %s goes: %s", b, AdminSilent)
	case WaitForHealthyCluster:
		return fmt.Sprintf("the restart of %s waits, maintenance mode off: %s", b, restartFactsReason(o))
	case HoldVersionChange:
		return fmt.Sprintf("the restart of %s is held, maintenance mode off: %s; the hold ends by itself once spec.image changes", b, o.Rollout.Upgrade.Check().Refused)
	case SuspendRestart:
		return fmt.Sprintf("suspending the restart of %s, maintenance mode off until it can go on: %s", b, restartFactsReason(o))
	case EnableMaintenance:
		return fmt.Sprintf("putting %s into maintenance mode again, to move its partition leadership away before its restart", b)
	case WaitForLeadershipDrain:
		return fmt.Sprintf("waiting while partition leadership moves away from %s", b)
	case RestartPod:
		return fmt.Sprintf("restarting %s to apply a change that needs a restart%s: its partition leadership has moved away, so its pod is deleted now; %s", b, changeClause(o, r.Ordinal), updated)
	case DeletePod:
		return fmt.Sprintf("deleting pod %s again to restart %s", r.Pod, b)
	case WaitForRestart:
		if o.Rollout.OldPodDeleting {
			if why := o.Rollout.StuckTerminating; why != "" {
				return fmt.Sprintf("the restart of %s waits: %s", b, why)
			}
			return fmt.Sprintf("waiting while pod %s is deleted to restart %s", r.Pod, b)
		}
		return fmt.Sprintf("waiting until %s is back: its new pod Ready and the broker an alive, active member%s", b, notReadyClause(o))
	case AdoptReplacedPod:
		return fmt.Sprintf("pod %s of %s was deleted by someone else while its leadership moved away: the restart goes on with the pod that replaces it, maintenance mode as it is until the broker is back; %s", r.Pod, b, updated)
	case ReplaceStuckPod:
		p, _ := stuckRestart(o)
		return fmt.Sprintf("replacing the new pod of %s, which cannot start (%s), now that the pod template has changed again; %s", b, p.Why, updated)
	case ReleaseMaintenance:
		p, _ := stuckRestart(o)
		return fmt.Sprintf("taking %s out of maintenance mode while its restart cannot finish: %s; %s", b, p.Why, stuckFix(p))
	case WaitForStuckPod:
		p, _ := stuckRestart(o)
		return fmt.Sprintf("the restart of %s waits: %s; %s", b, p.Why, stuckFix(p))
	case FinishRestart:
		if o.Rollout.Recovery.NoProbe {
			return fmt.Sprintf("%s is back after its restart: maintenance mode off, restart finished (it has no post-restart probe, Redpanda before 25.1, so being back is enough); %s", b, updated)
		}
		return fmt.Sprintf("%s is back after its restart: maintenance mode off, restart finished; %s", b, updated)
	case WaitForRecovery:
		rc := o.Rollout.Recovery
		if rc.Reclaimed < 0 {
			return fmt.Sprintf("waiting until %s has reclaimed its load after its restart: its post-restart probe did not answer (%s), so the next broker waits", b, rc.Problem)
		}
		msg := fmt.Sprintf("waiting until %s has reclaimed its load after its restart: %d%% of its in-sync replicas have caught up, %d%% wanted (spec.rollout.recoveredPercent)", b, rc.Reclaimed, rc.Wanted)
		if rc.Overdue {
			msg += fmt.Sprintf(", for %s now, longer than spec.rollout.recoveryTimeout (%s); the next broker still waits for it", rc.Waited.Round(time.Second), rc.Timeout)
		}
		return msg
	}
	return t.When
}

// rolloutReason is the reason of a rollout step between two restarts, taken by row t.
func rolloutReason(t Transition, o Observation) string {
	next := brokerOnPod(o.Rollout.Next.ID, o.Rollout.Next.IDKnown, o.Rollout.NextPod)
	updated := restartsLeft(o)
	switch t.Then {
	case WaitForAdminAPI:
		return fmt.Sprintf("cannot tell which broker to restart next (%s): %s", updated, AdminSilent)
	case WaitForReadyBrokers:
		if !o.Rollout.AllReady {
			return fmt.Sprintf("the rollout waits until every broker's pod is Ready, pod %s first (%s)", o.Rollout.NotReadyPod, updated)
		}
		return fmt.Sprintf("the rollout waits until %s is an active member (%s)", next, updated)
	case WaitForHealthyCluster:
		if o.Rollout.Risk.Decides() && !o.SkipHealthGate {
			return fmt.Sprintf("restarting %s to apply a change that needs a restart waits (%s): %s", next, updated, restartGateProblem(o))
		}
		return fmt.Sprintf("the health gate holds back restarting %s to apply a change that needs a restart (%s): %s", next, updated, restartGateProblem(o))
	case HoldVersionChange:
		return fmt.Sprintf("the rollout is held, no broker restarts (%s): %s; the hold ends by itself once spec.image changes", updated, o.Rollout.Upgrade.Check().Refused)
	case HoldForSuperuser:
		return fmt.Sprintf("the rollout is held, no broker restarts (%s): the restarted brokers would require Kafka SASL, and the superuser of spec.adminAPI.auth is not in place (%s); the hold ends by itself once SecurityReady is True", updated, o.Rollout.SuperuserHold)
	case WaitForBrokerID:
		return fmt.Sprintf("the rollout waits: cannot tell which broker pod %s runs (its /v1/node_config did not answer and no broker advertises the pod's name)", o.Rollout.NextPod)
	case RestartSingleBroker:
		return fmt.Sprintf("restarting %s, the only broker, to apply a change that needs a restart%s: there is no other broker to move its partition leadership to, so its pod is deleted at once; %s%s%s", next, changeClause(o, o.Rollout.Next.Ordinal), updated, o.Rollout.Risk.RF1Notice(), uncheckedClause(o))
	case StartRestart:
		return fmt.Sprintf("restarting %s to apply a change that needs a restart%s: maintenance mode on, its partition leadership moves away first; %s%s%s%s", next, changeClause(o, o.Rollout.Next.Ordinal), updated, o.Rollout.Risk.RF1Notice(), heldClause(o), uncheckedClause(o))
	case ReplaceStuckPod:
		p, _ := stuckOutdated(o)
		return fmt.Sprintf("replacing pod %s, made from an older pod template, which cannot start (%s): it is unavailable already, so it is replaced before any healthy broker restarts; %s", p.Pod, p.Why, updated)
	case RecoverLostBroker:
		return recoverReason(o)
	case WaitForStuckPod:
		var p StuckPod
		if len(o.Rollout.Stuck) > 0 {
			p = o.Rollout.Stuck[0]
		}
		if b, lost := lostOf(o, p.Ordinal); lost {
			return lostWhy(o, b)
		}
		if p.Unschedulable {
			return fmt.Sprintf("%s; %s, or lower spec.replicas", p.Why, placementFix)
		}
		return fmt.Sprintf("%s; it runs the current pod template, so the operator cannot replace it with a better one: fix the spec (image, resources, Secrets) or the nodes", p.Why)
	}
	return t.When
}

// placementFix says what lets the scheduler place a broker pod it finds no node for.
const placementFix = "no node can take it (a node runs at most one broker of a cluster unless spec.affinity says otherwise): " +
	"add a node it fits on, and it starts there, or change spec.affinity, spec.topologySpreadConstraints, spec.nodeSelector, " +
	"spec.tolerations or spec.resources, and the operator replaces the pod"

// stuckFix says what lets a restart's new pod that cannot start come up.
func stuckFix(p StuckPod) string {
	if p.Unschedulable {
		return placementFix
	}
	return "fix the spec (image, resources, Secrets) or the nodes, and the operator replaces the pod"
}

// stepSubject names what a step is part of, for a step that could not be taken: "the
// decommission of broker 104", "the restart of broker 2".
func Subject(s Step) string {
	b := "the next broker"
	if s.Broker != nil {
		b = fmt.Sprintf("broker %d", *s.Broker)
	}
	switch s.Kind {
	case StartDecommission, AdoptDrain, SkipAbsentBroker, Decommission, FinishDecommission, Recommission, CancelDecommission:
		return "the decommission of " + b
	case StartRestart, RestartSingleBroker, EnableMaintenance, RestartPod, DeletePod, SuspendRestart, FinishRestart, AdoptReplacedPod, WaitForRecovery, ReleaseMaintenance:
		return "the restart of " + b
	case ReplaceStuckPod:
		return "the replacement of a pod that cannot start"
	case RecoverLostBroker:
		return "the recovery of " + b
	case ScaleUp:
		return "the scale-up"
	}
	return "the next step"
}

// restartStepWords says what status.restart.step means.
func restartStepWords(st v1alpha1.RestartStep) string {
	switch st {
	case v1alpha1.RestartDraining:
		return "its partition leadership moves away (maintenance mode)"
	case v1alpha1.RestartRestarting:
		return "its pod is deleted and made again"
	}
	return string(st)
}

// OptionalID names a broker ID that may be missing: its number, or "none".
func OptionalID(p *int32) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(int(*p))
}

// notReadyClause names the pod a wait is for and why it is not Ready, from its own status.
func notReadyClause(o Observation) string {
	if o.Rollout.NotReady == "" {
		return ""
	}
	return ": " + o.Rollout.NotReady
}

// heldClause names the brokers the rollout passed over for the risks of their restarts.
func heldClause(o Observation) string {
	if o.Rollout.Held == "" {
		return ""
	}
	return "; passed over for now: " + o.Rollout.Held
}

// uncheckedClause says that a restart goes ahead without the version check, and why.
func uncheckedClause(o Observation) string {
	if why := o.Rollout.Upgrade.Check().Unchecked; why != "" {
		return "; " + why
	}
	return ""
}

// changeOf names the change a restart of the pod at ordinal applies: the image from and to, the
// pod template's fields, the cluster properties that take effect on restart. "" when the pod is
// not outdated.
func changeOf(o Observation, ordinal int32) string {
	i := slices.IndexFunc(o.Rollout.Order, func(p PodAt) bool { return p.Ordinal == ordinal })
	if i < 0 {
		return ""
	}
	p := o.Rollout.Order[i]
	var parts []string
	if p.Template && p.Image != o.Rollout.Upgrade.Image {
		parts = append(parts, fmt.Sprintf("image %s to %s", p.Image, o.Rollout.Upgrade.Image))
	}
	if len(p.Fields) > 0 {
		parts = append(parts, "pod template fields "+strings.Join(p.Fields, ", "))
	}
	if p.Template && len(parts) == 0 {
		parts = append(parts, "a new pod template")
	}
	if p.Config {
		parts = append(parts, "cluster properties that take effect on restart"+propertyList(o.Rollout.PendingProperties)+" (its /v1/cluster_config/status says restart)")
	}
	if p.Requested {
		parts = append(parts, "a restart asked for on its pod ("+brokerpod.AnnotationRestartRequested+": "+p.RequestedBy+")")
	}
	return strings.Join(parts, "; ")
}

// changeClause is changeOf in brackets, for "to apply a change that needs a restart".
func changeClause(o Observation, ordinal int32) string {
	if c := changeOf(o, ordinal); c != "" {
		return " (" + c + ")"
	}
	return ""
}

// propertyList names the cluster properties waiting for a restart: ": a, b", or "" when none is
// known.
func propertyList(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, ", ")
}
