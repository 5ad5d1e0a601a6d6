package step

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	corev1 "k8s.io/api/core/v1"
)

// The rollout. The StatefulSet uses OnDelete, so a new pod template restarts nothing by itself.
// The operator restarts the brokers whose pods were made from another template one at a time,
// highest ordinal first, as Redpanda operator v1 does (redpanda-data/redpanda-operator,
// operator/pkg/resources/statefulset_update.go): health gate, maintenance mode on, wait until
// the broker's partition leadership has moved away, delete the pod, wait until the new pod is
// Ready and its broker is back, maintenance mode off, next.
//
// R is status.restart, the one broker being restarted. Its step is recorded in status before
// the call it stands for, with the BrokerCluster's resourceVersion as a precondition, so a
// reconcile that read an old status cannot start a second restart or repeat a step. The pod
// is deleted with its recorded UID as a precondition, so the pod that replaces it is never
// deleted.
//
// Order with scaling: a decommission under way (B set) finishes first and no restart starts
// meanwhile; a restart under way (R set) finishes first, up to maintenance mode off, and no
// scaling step starts meanwhile. Between two brokers scaling goes first: a scale-up's new pods
// are made from the new template, and a scale-down removes the highest ordinals, which are the
// next to restart anyway.

func restarting(o Observation) bool { return o.Rollout.Restart != nil }
func draining(o Observation) bool {
	return restarting(o) && o.Rollout.Restart.Step == v1alpha1.RestartDraining
}

// beforeDelete: R is set and its pod has not been deleted yet; the restart's facts still count.
func beforeDelete(o Observation) bool {
	return restarting(o) && (draining(o) || (!o.Rollout.OldPodGone && !o.Rollout.OldPodDeleting))
}

// restartFactsHold: what a restart's irreversible steps rely on holds (table.go): the health
// gate is open, every other broker is up, and the pod is Ready.
func restartFactsHold(o Observation) bool {
	return restartGateOpen(o) && o.Rollout.OthersUp && o.Rollout.PodReady && !versionRefused(o)
}

// versionRefused: the rollout changes the brokers' version off Redpanda's path (upgrade.go).
func versionRefused(o Observation) bool { return o.Rollout.Upgrade.Check().Refused != "" }

// superuserHeld: the rollout would turn Kafka SASL on before the superuser is in place.
func superuserHeld(o Observation) bool { return o.Rollout.SuperuserHold != "" }

// stuckRestart is R's new pod when it cannot come up by itself.
func stuckRestart(o Observation) (StuckPod, bool) {
	for _, p := range o.Rollout.Stuck {
		if o.Rollout.OldPodGone && p.Ordinal == o.Rollout.Restart.Ordinal {
			return p, true
		}
	}
	return StuckPod{}, false
}

// stuckOutdated is the highest-ordinal outdated pod that cannot come up by itself.
func stuckOutdated(o Observation) (StuckPod, bool) {
	for _, p := range o.Rollout.Stuck {
		if p.Outdated {
			return p, true
		}
	}
	return StuckPod{}, false
}

// restartTransitions: R is set. The first row that matches wins.
var restartTransitions = []Transition{
	// The only broker of a cluster of one cannot answer while its pod cannot start: replacing
	// that pod once the template changed needs nothing from the admin API (no other broker can
	// be down or draining).
	{"Restarting", "the only broker's new pod cannot start, and the template changed since it was made", func(o Observation) bool {
		p, stuck := stuckRestart(o)
		return o.Brokers() == 1 && !o.Rollout.Back && stuck && p.Outdated
	}, ReplaceStuckPod},
	{"Restarting", "the admin API did not answer", func(o Observation) bool {
		return o.AdminUnavailable || (draining(o) && o.Rollout.Maintenance == MaintenanceUnknown) ||
			(beforeDelete(o) && !o.SkipHealthGate && !o.Health.Known && !o.Rollout.Risk.Decides())
	}, WaitForAdminAPI},
	// A drain (kubectl drain, a node upgrade) or a person deleted the pod while its leadership
	// moved away: the restart goes on with the pod that replaces it, as if the operator had
	// deleted it, and its maintenance mode stays as it is until the broker is back.
	{"Draining", "its pod was deleted by someone else", func(o Observation) bool {
		return draining(o) && (o.Rollout.OldPodGone || o.Rollout.OldPodDeleting)
	}, AdoptReplacedPod},
	{"Draining", "the change of version is not one Redpanda supports; maintenance mode is off", func(o Observation) bool {
		return draining(o) && o.Rollout.Maintenance == MaintenanceOff && versionRefused(o)
	}, HoldVersionChange},
	{"Draining", "a fact the restart relies on does not hold; maintenance mode is off", func(o Observation) bool {
		return draining(o) && o.Rollout.Maintenance == MaintenanceOff && !restartFactsHold(o)
	}, WaitForHealthyCluster},
	{"Draining", "a fact the restart relies on does not hold; maintenance mode is on", func(o Observation) bool {
		return draining(o) && !restartFactsHold(o)
	}, SuspendRestart},
	{"Draining", "maintenance mode is not on yet", func(o Observation) bool {
		return draining(o) && o.Rollout.Maintenance == MaintenanceOff
	}, EnableMaintenance},
	{"Draining", "leadership is still moving away", func(o Observation) bool {
		return draining(o) && o.Rollout.Maintenance == MaintenanceDraining
	}, WaitForLeadershipDrain},
	{"Draining", "leadership has moved away", draining, RestartPod},
	{"Restarting", "the old pod is being deleted", func(o Observation) bool { return o.Rollout.OldPodDeleting }, WaitForRestart},
	{"Restarting", "the old pod is still there, and a fact the restart relies on does not hold", func(o Observation) bool {
		return !o.Rollout.OldPodGone && !restartFactsHold(o)
	}, SuspendRestart},
	{"Restarting", "the old pod is still there", func(o Observation) bool { return !o.Rollout.OldPodGone }, DeletePod},
	{"Restarting", "the new pod cannot start, and the template changed since it was made", func(o Observation) bool {
		p, stuck := stuckRestart(o)
		return !o.Rollout.Back && stuck && p.Outdated
	}, ReplaceStuckPod},
	{"Restarting", "the new pod cannot start, and the broker is still in maintenance mode", func(o Observation) bool {
		_, stuck := stuckRestart(o)
		m := o.Rollout.Maintenance
		return !o.Rollout.Back && stuck && (m == MaintenanceDraining || m == MaintenanceDrained)
	}, ReleaseMaintenance},
	{"Restarting", "the new pod cannot start", func(o Observation) bool {
		_, stuck := stuckRestart(o)
		return !o.Rollout.Back && stuck
	}, WaitForStuckPod},
	{"Restarting", "the new pod is not Ready or the broker is not back", func(o Observation) bool { return !o.Rollout.Back }, WaitForRestart},
	// The broker is back; the next restart waits until it leads its share again (redpanda-data/
	// redpanda-operator issue 1873: brokers rolled while each still replayed its log).
	{"Restarting", "the broker is back, but has not reclaimed its load", func(o Observation) bool { return !o.Rollout.Recovery.Done() }, WaitForRecovery},
	{"Restarting", "the broker is back", func(Observation) bool { return true }, FinishRestart},
}

// rolloutTransitions: no broker is being restarted and C = D. The first row that matches wins.
var rolloutTransitions = []Transition{
	// Before anything else: nothing is under way (R and B are empty, C = D), and the lost
	// broker is down already, so the rollout could not go on anyway.
	{"Steady", "a broker's volume is pinned to a node that is gone, and its recovery is due", recoveryDue, RecoverLostBroker},
	{"Steady", "every pod is up to date, and one cannot start", func(o Observation) bool {
		return o.Rollout.Outdated == 0 && len(o.Rollout.Stuck) > 0
	}, WaitForStuckPod},
	{"Steady", "every pod is up to date", func(o Observation) bool { return o.Rollout.Outdated == 0 }, None},
	{"RollingOut", "the admin API did not answer", func(o Observation) bool {
		return o.AdminUnavailable || o.Rollout.Next.Status == MemberUnknown
	}, WaitForAdminAPI},
	// Before anything restarts, the pod of a stuck broker included: a broker of a skipped release
	// would not come back.
	{"RollingOut", "the change of version is not one Redpanda supports", versionRefused, HoldVersionChange},
	// A broker restarted onto listeners that require SASL before the superuser exists locks
	// out every client, the operator's Kafka client too: enable_sasl waits for the superuser
	// (security.go), and so do these restarts.
	{"RollingOut", "a restart would turn Kafka SASL on before the superuser is in place", superuserHeld, HoldForSuperuser},
	// An outdated pod that cannot come up by itself is already unavailable: it is replaced at
	// once, before any healthy broker restarts, without waiting for it to become Ready.
	{"RollingOut", "an outdated pod cannot start", func(o Observation) bool {
		_, stuck := stuckOutdated(o)
		return stuck
	}, ReplaceStuckPod},
	{"RollingOut", "a pod on the current template cannot start", func(o Observation) bool {
		return len(o.Rollout.Stuck) > 0
	}, WaitForStuckPod},
	{"RollingOut", "a broker's pod is not Ready", func(o Observation) bool { return !o.Rollout.AllReady }, WaitForReadyBrokers},
	{"RollingOut", "restarting the next broker would put partitions at risk, or the health gate is closed", func(o Observation) bool {
		return !restartGateOpen(o)
	}, WaitForHealthyCluster},
	{"RollingOut", "the next broker's ID is not known", func(o Observation) bool { return !o.Rollout.Next.IDKnown }, WaitForBrokerID},
	{"RollingOut", "the next broker is not an active member", func(o Observation) bool {
		return o.Rollout.Next.Status != MemberActive
	}, WaitForReadyBrokers},
	// Redpanda refuses maintenance mode on a single-broker cluster (admin server.cc,
	// start_broker_maintenance_handler): there is no one to move leadership to.
	{"RollingOut", "a single broker: nothing to move leadership to", func(o Observation) bool { return o.Brokers() == 1 }, RestartSingleBroker},
	{"RollingOut", "a broker is next to restart", func(Observation) bool { return true }, StartRestart},
}

// decideRollout names the rollout's step, for an observation with no decommission under way.
func decideRollout(o Observation, table []Transition) Step {
	for _, t := range table {
		if !t.match(o) {
			continue
		}
		s := Step{Kind: t.Then, Upgrade: o.Rollout.Upgrade}
		switch {
		case o.Rollout.Restart != nil:
			id := o.Rollout.Restart.NodeID
			s.Broker = &id
			s.Reason = restartReason(t, o)
		default:
			if o.Rollout.Next.IDKnown {
				id := o.Rollout.Next.ID
				s.Broker = &id
			}
			s.Reason = rolloutReason(t, o)
		}
		s.Overdue = (t.Then == WaitForRecovery && o.Rollout.Recovery.Overdue) ||
			(t.Then == WaitForRestart && o.Rollout.OldPodDeleting && o.Rollout.StuckTerminating != "")
		switch {
		case t.Then == RecoverLostBroker:
		case o.Rollout.Restart != nil:
			s.AnyTime = requestedAnyTime(o, o.Rollout.Restart.Ordinal)
		default:
			s.AnyTime = requestedAnyTime(o, o.Rollout.Next.Ordinal)
		}
		if t.Then == ReplaceStuckPod {
			p, _ := stuckOutdated(o)
			if o.Rollout.Restart != nil {
				p, _ = stuckRestart(o)
			}
			s.Pod = &PodRef{Name: p.Pod, UID: p.UID}
			if o.Rollout.Restart == nil { // a restart's own pod: its broker is R's
				s.Broker = nil
				if p.IDKnown {
					id := p.NodeID
					s.Broker = &id
				}
			}
		}
		if t.Then == RecoverLostBroker {
			b := o.LostNodes.Brokers[0]
			s.Lost, s.Pod, s.Broker = &b, &PodRef{Name: b.Pod, UID: b.PodUID}, &b.NodeID
		}
		switch t.Then {
		case StartRestart, RestartSingleBroker:
			st := v1alpha1.RestartDraining
			if t.Then == RestartSingleBroker {
				st = v1alpha1.RestartRestarting
			}
			s.Restart = &v1alpha1.BrokerRestart{Pod: o.Rollout.NextPod, Ordinal: o.Rollout.Next.Ordinal,
				NodeID: o.Rollout.Next.ID, Step: st, PodUID: o.Rollout.NextPodUID}
		}
		return s
	}
	panic("controller: the rollout table has no row for this observation") // the last row matches everything
}

// restartFactsReason names what holds a restart back: its pod not Ready, the health gate's
// problems, or another broker down.
func restartFactsReason(o Observation) string {
	switch {
	case versionRefused(o):
		return o.Rollout.Upgrade.Check().Refused
	case o.Rollout.Restart != nil && !o.Rollout.PodReady:
		return fmt.Sprintf("pod %s is not Ready", o.Rollout.Restart.Pod)
	case !restartGateOpen(o):
		return restartGateProblem(o)
	case !o.Rollout.OthersUp:
		return "the admin API lists another broker as down"
	}
	return o.Health.String()
}

// Which pod restarts next: the highest ordinal among the outdated, as Redpanda operator v1
// does. ObserveRollout reads it from the pods.

// ObserveRollout reads what the pods say about the rollout: which pods below C were made from
// another template than bc's or run a broker in configRestarts (one that waits for a restart
// for a cluster property, by the node ID recorded on its pod), whether all of them are Ready,
// and how R's pod is doing. The admin API's part (the next broker's ID, maintenance mode,
// whether R's broker is back) is filled in by brokers.Admin.Observe.
// revision is the template hash of the pods bc's StatefulSet makes (objects.PodTemplates.Revision).
func ObserveRollout(bc *v1alpha1.BrokerCluster, revision string, pods map[int]*corev1.Pod, configRestarts map[int32]bool, now time.Time) Rollout {
	r := Rollout{Restart: bc.Status.Restart, AllReady: true, Revision: revision, Upgrade: Upgrade{Image: bc.Spec.Image}}
	if cc := bc.Status.ClusterConfig; cc != nil {
		r.PendingProperties = cc.PendingRestart
	}
	for ordinal := int(bc.Status.CurrentReplicas) - 1; ordinal >= 0; ordinal-- {
		p := pods[ordinal]
		if p == nil || !brokerpod.IsReady(p) {
			r.AllReady = false
			if r.NotReady == "" {
				r.NotReadyPod, r.NotReady = fmt.Sprintf("%s-%d", bc.Name, ordinal), notReady(bc.Name, ordinal, p, now)
			}
		}
		if p == nil || p.DeletionTimestamp != nil {
			continue // the StatefulSet makes its replacement from the current template
		}
		id, idKnown := brokerpod.NodeID(p)
		r.Upgrade.Brokers = append(r.Upgrade.Brokers, BrokerVersion{Ordinal: int32(ordinal), Pod: p.Name, Image: brokerpod.Image(p),
			Current: brokerpod.Revision(p) == revision, ID: id, IDKnown: idKnown})
		if why, stuck := brokerpod.Stuck(p, now); stuck {
			id, known := brokerpod.NodeID(p)
			r.Stuck = append(r.Stuck, StuckPod{Ordinal: int32(ordinal), Pod: p.Name, UID: string(p.UID), Why: why,
				Unschedulable: brokerpod.Unschedulable(p), Outdated: brokerpod.Revision(p) != revision, NodeID: id, IDKnown: known})
		}
		by, requested := brokerpod.RestartRequested(p)
		if brokerpod.Revision(p) == revision {
			r.Updated++
			if id, ok := brokerpod.NodeID(p); !requested && (!ok || !configRestarts[id]) {
				continue
			}
		}
		r.Outdated++
		r.Order = append(r.Order, PodAt{Ordinal: int32(ordinal), Pod: p.Name, UID: string(p.UID), Image: brokerpod.Image(p),
			Template: brokerpod.Revision(p) != revision, Config: configRestarts[id] && idKnown, Requested: requested, RequestedBy: by,
			ID: id, IDKnown: idKnown})
	}
	// A restart someone asked for (a drain waiting on an eviction) goes first.
	slices.SortStableFunc(r.Order, func(a, b PodAt) int {
		switch {
		case a.Requested == b.Requested:
			return 0
		case a.Requested:
			return -1
		}
		return 1
	})
	if len(r.Order) > 0 {
		first := r.Order[0]
		r.Next.Ordinal, r.NextPod, r.NextPodUID = first.Ordinal, first.Pod, first.UID
	}
	if rs := r.Restart; rs != nil {
		p := pods[int(rs.Ordinal)]
		r.OldPodGone = p == nil || string(p.UID) != rs.PodUID
		r.OldPodDeleting = !r.OldPodGone && p.DeletionTimestamp != nil
		if r.OldPodDeleting {
			r.StuckTerminating = stuckTerminating(p, now)
		}
		r.PodReady = !r.OldPodGone && !r.OldPodDeleting && brokerpod.IsReady(p)
		r.Back = r.OldPodGone && p != nil && brokerpod.IsReady(p)
	}
	return r
}

// TerminatingGrace is how long past its deletionTimestamp (the delete's time plus the pod's
// grace period) a pod may still be there before the wait for it is reported: the kubelet
// should have stopped it by then.
const TerminatingGrace = 2 * time.Minute

// stuckTerminating says why a pod being deleted is overdue, "" while it is not. A pod whose
// node is down stays Terminating until the node comes back or its object is deleted; the
// operator never forces the delete, as the broker may still run there.
func stuckTerminating(p *corev1.Pod, now time.Time) string {
	if p.DeletionTimestamp == nil || now.Sub(p.DeletionTimestamp.Time) < TerminatingGrace {
		return ""
	}
	node := p.Spec.NodeName
	if node == "" {
		node = "no node"
	}
	return fmt.Sprintf("pod %s has been terminating for %s past its grace period on %s: its kubelet has not finished the delete (is the node down?); the restart waits for it, and `kubectl delete pod %s --force` is safe only once you know the broker no longer runs there",
		p.Name, now.Sub(p.DeletionTimestamp.Time).Round(time.Second), node, p.Name)
}

// LeaderLast is order with the controller leader's pod (the one isLeader names) moved to the end:
// restarting it costs a controller election for every broker restarted after it, so Strimzi's
// KafkaRoller rolls the active controller last, and so does this rollout. A restart someone
// asked for is not put off. order itself is left as it is.
func LeaderLast(order []PodAt, isLeader func(PodAt) bool) []PodAt {
	i := slices.IndexFunc(order, isLeader)
	if i < 0 || i == len(order)-1 || order[i].Requested {
		return order
	}
	return append(slices.Delete(slices.Clone(order), i, i+1), order[i])
}

// notReady says why the pod at ordinal is not Ready, from its own status.
func notReady(cluster string, ordinal int, p *corev1.Pod, now time.Time) string {
	switch {
	case p == nil:
		return fmt.Sprintf("pod %s-%d does not exist yet", cluster, ordinal)
	case p.DeletionTimestamp != nil:
		return fmt.Sprintf("pod %s is being deleted", p.Name)
	}
	if why, stuck := brokerpod.Stuck(p, now); stuck {
		return why
	}
	if p.Status.Phase == corev1.PodPending {
		return fmt.Sprintf("pod %s is Pending (%s)", p.Name, podConditions(p))
	}
	return fmt.Sprintf("pod %s is %s and not Ready yet", p.Name, p.Status.Phase)
}

// podConditions lists a pod's conditions that are not True, for a Pending pod.
func podConditions(p *corev1.Pod) string {
	var out []string
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			out = append(out, fmt.Sprintf("%s %s", c.Type, c.Reason))
		}
	}
	if len(out) == 0 {
		return "not scheduled yet"
	}
	return strings.Join(out, ", ")
}
