package controller

import (
	"fmt"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
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

func restarting(o observation) bool { return o.Rollout.Restart != nil }
func draining(o observation) bool {
	return restarting(o) && o.Rollout.Restart.Step == v1alpha1.RestartDraining
}

// beforeDelete: R is set and its pod has not been deleted yet; the restart's facts still count.
func beforeDelete(o observation) bool {
	return restarting(o) && (draining(o) || (!o.Rollout.OldPodGone && !o.Rollout.OldPodDeleting))
}

// restartFactsHold: what a restart's irreversible steps rely on holds (steps.go): the health
// gate is open, every other broker is up, and the pod is Ready.
func restartFactsHold(o observation) bool {
	return (o.SkipHealthGate || (o.Health.healthy() && o.Rollout.OthersUp)) && o.Rollout.PodReady
}

// restartTransitions: R is set. The first row that matches wins.
var restartTransitions = []transition{
	{"Restarting", "the admin API did not answer", func(o observation) bool {
		return o.AdminUnavailable || (draining(o) && o.Rollout.Maintenance == maintenanceUnknown) ||
			(beforeDelete(o) && !o.SkipHealthGate && !o.Health.Known)
	}, stepWaitAdmin},
	{"Draining", "a fact the restart relies on does not hold; maintenance mode is off", func(o observation) bool {
		return draining(o) && o.Rollout.Maintenance == maintenanceOff && !restartFactsHold(o)
	}, stepWaitHealthy},
	{"Draining", "a fact the restart relies on does not hold; maintenance mode is on", func(o observation) bool {
		return draining(o) && !restartFactsHold(o)
	}, stepSuspendRestart},
	{"Draining", "maintenance mode is not on yet", func(o observation) bool {
		return draining(o) && o.Rollout.Maintenance == maintenanceOff
	}, stepEnableMaintenance},
	{"Draining", "leadership is still moving away", func(o observation) bool {
		return draining(o) && o.Rollout.Maintenance == maintenanceDraining
	}, stepWaitLeadership},
	{"Draining", "leadership has moved away", draining, stepRestartPod},
	{"Restarting", "the old pod is being deleted", func(o observation) bool { return o.Rollout.OldPodDeleting }, stepWaitRestart},
	{"Restarting", "the old pod is still there, and a fact the restart relies on does not hold", func(o observation) bool {
		return !o.Rollout.OldPodGone && !restartFactsHold(o)
	}, stepSuspendRestart},
	{"Restarting", "the old pod is still there", func(o observation) bool { return !o.Rollout.OldPodGone }, stepDeletePod},
	{"Restarting", "the new pod is not Ready or the broker is not back", func(o observation) bool { return !o.Rollout.Back }, stepWaitRestart},
	{"Restarting", "the broker is back", func(observation) bool { return true }, stepFinishRestart},
}

// rolloutTransitions: no broker is being restarted and C = D. The first row that matches wins.
var rolloutTransitions = []transition{
	{"Steady", "every pod is up to date", func(o observation) bool { return o.Rollout.Outdated == 0 }, stepNone},
	{"RollingOut", "the admin API did not answer", func(o observation) bool {
		return o.AdminUnavailable || o.Rollout.Next.Status == memberUnknown
	}, stepWaitAdmin},
	{"RollingOut", "a broker's pod is not Ready", func(o observation) bool { return !o.Rollout.AllReady }, stepWaitPods},
	{"RollingOut", "the health gate is closed", gateClosed, stepWaitHealthy},
	{"RollingOut", "the next broker's ID is not known", func(o observation) bool { return !o.Rollout.Next.IDKnown }, stepWaitBrokerID},
	{"RollingOut", "the next broker is not an active member", func(o observation) bool {
		return o.Rollout.Next.Status != memberActive
	}, stepWaitPods},
	// Redpanda refuses maintenance mode on a single-broker cluster (admin server.cc,
	// start_broker_maintenance_handler): there is no one to move leadership to.
	{"RollingOut", "a single broker: nothing to move leadership to", func(o observation) bool { return o.Current == 1 }, stepRestartAlone},
	{"RollingOut", "a broker is next to restart", func(observation) bool { return true }, stepStartRestart},
}

// decideRollout names the rollout's step, for an observation with no decommission under way.
func decideRollout(o observation, table []transition) step {
	for _, t := range table {
		if !t.match(o) {
			continue
		}
		s := step{Kind: t.Then}
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
		case stepStartRestart, stepRestartAlone:
			st := v1alpha1.RestartDraining
			if t.Then == stepRestartAlone {
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
func restartFactsReason(o observation) string {
	switch {
	case o.Rollout.Restart != nil && !o.Rollout.PodReady:
		return fmt.Sprintf("pod %s is not Ready", o.Rollout.Restart.Pod)
	case !o.Health.healthy():
		return "the cluster is not healthy: " + o.Health.String()
	case !o.Rollout.OthersUp:
		return "the admin API lists another broker as down"
	}
	return o.Health.String()
}
