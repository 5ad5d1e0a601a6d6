package step

import (
	"fmt"

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
	return (o.SkipHealthGate || (o.Health.Healthy() && o.Rollout.OthersUp)) && o.Rollout.PodReady
}

// restartTransitions: R is set. The first row that matches wins.
var restartTransitions = []Transition{
	{"Restarting", "the admin API did not answer", func(o Observation) bool {
		return o.AdminUnavailable || (draining(o) && o.Rollout.Maintenance == MaintenanceUnknown) ||
			(beforeDelete(o) && !o.SkipHealthGate && !o.Health.Known)
	}, WaitForAdminAPI},
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
	{"Restarting", "the new pod is not Ready or the broker is not back", func(o Observation) bool { return !o.Rollout.Back }, WaitForRestart},
	{"Restarting", "the broker is back", func(Observation) bool { return true }, FinishRestart},
}

// rolloutTransitions: no broker is being restarted and C = D. The first row that matches wins.
var rolloutTransitions = []Transition{
	{"Steady", "every pod is up to date", func(o Observation) bool { return o.Rollout.Outdated == 0 }, None},
	{"RollingOut", "the admin API did not answer", func(o Observation) bool {
		return o.AdminUnavailable || o.Rollout.Next.Status == MemberUnknown
	}, WaitForAdminAPI},
	{"RollingOut", "a broker's pod is not Ready", func(o Observation) bool { return !o.Rollout.AllReady }, WaitForReadyBrokers},
	{"RollingOut", "the health gate is closed", gateClosed, WaitForHealthyCluster},
	{"RollingOut", "the next broker's ID is not known", func(o Observation) bool { return !o.Rollout.Next.IDKnown }, WaitForBrokerID},
	{"RollingOut", "the next broker is not an active member", func(o Observation) bool {
		return o.Rollout.Next.Status != MemberActive
	}, WaitForReadyBrokers},
	// Redpanda refuses maintenance mode on a single-broker cluster (admin server.cc,
	// start_broker_maintenance_handler): there is no one to move leadership to.
	{"RollingOut", "a single broker: nothing to move leadership to", func(o Observation) bool { return o.Current == 1 }, RestartSingleBroker},
	{"RollingOut", "a broker is next to restart", func(Observation) bool { return true }, StartRestart},
}

// decideRollout names the rollout's step, for an observation with no decommission under way.
func decideRollout(o Observation, table []Transition) Step {
	for _, t := range table {
		if !t.match(o) {
			continue
		}
		s := Step{Kind: t.Then}
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
	case o.Rollout.Restart != nil && !o.Rollout.PodReady:
		return fmt.Sprintf("pod %s is not Ready", o.Rollout.Restart.Pod)
	case !o.Health.Healthy():
		return "the cluster is not healthy: " + o.Health.String()
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
func ObserveRollout(bc *v1alpha1.BrokerCluster, revision string, pods map[int]*corev1.Pod, configRestarts map[int32]bool) Rollout {
	r := Rollout{Restart: bc.Status.Restart, AllReady: true, Revision: revision}
	for ordinal := int(bc.Status.CurrentReplicas) - 1; ordinal >= 0; ordinal-- {
		p := pods[ordinal]
		if p == nil || !brokerpod.IsReady(p) {
			r.AllReady = false
		}
		if p == nil || p.DeletionTimestamp != nil {
			continue // the StatefulSet makes its replacement from the current template
		}
		if brokerpod.Revision(p) == revision {
			r.Updated++
			if id, ok := brokerpod.NodeID(p); !ok || !configRestarts[id] {
				continue
			}
		}
		r.Outdated++
		if r.NextPod == "" {
			r.Next.Ordinal, r.NextPod, r.NextPodUID = int32(ordinal), p.Name, string(p.UID)
		}
	}
	if rs := r.Restart; rs != nil {
		p := pods[int(rs.Ordinal)]
		r.OldPodGone = p == nil || string(p.UID) != rs.PodUID
		r.OldPodDeleting = !r.OldPodGone && p.DeletionTimestamp != nil
		r.PodReady = !r.OldPodGone && !r.OldPodDeleting && brokerpod.IsReady(p)
		r.Back = r.OldPodGone && p != nil && brokerpod.IsReady(p)
	}
	return r
}
