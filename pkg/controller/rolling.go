package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

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

// maintenance is what the admin API says about one broker's maintenance mode
// (GET /v1/brokers/{id}, maintenance_status: draining and finished).
type maintenance int

const (
	maintenanceUnknown maintenance = iota
	maintenanceOff
	// maintenanceDraining: on, leadership still moving away.
	maintenanceDraining
	// maintenanceDrained: on, and the drain has finished.
	maintenanceDrained
)

func (m maintenance) String() string {
	return [...]string{"unknown", "off", "draining", "drained"}[m]
}

// rollout is what a rollout decision rests on.
type rollout struct {
	// Restart is R, nil when no broker is being restarted.
	Restart *v1alpha1.BrokerRestart
	// Maintenance is the admin API's view of R's broker.
	Maintenance maintenance
	// OldPodGone: no pod of R's ordinal has the UID recorded in R.
	OldPodGone bool
	// OldPodDeleting: the pod recorded in R is there and being deleted.
	OldPodDeleting bool
	// PodReady: the pod recorded in R is there, Ready and not being deleted.
	PodReady bool
	// OthersUp: the admin API lists every member but R's broker as alive.
	OthersUp bool
	// Back: a pod of R's ordinal with another UID is Ready, and the admin API lists R's broker
	// as an alive, active member.
	Back bool
	// Outdated counts the pods below C made from another template.
	Outdated int
	// AllReady: every pod below C exists and is Ready.
	AllReady bool
	// Next is the broker of the highest-ordinal outdated pod, the next to restart.
	Next victim
	// NextPod and NextPodUID name that pod.
	NextPod, NextPodUID string
	// Revision is the current template's hash; Updated counts the pods below C made from it.
	Revision string
	Updated  int32
}

// Steps of the rollout.
const (
	stepWaitHealthy       stepKind = "WaitForHealthyCluster"
	stepWaitPods          stepKind = "WaitForReadyBrokers"
	stepStartRestart      stepKind = "StartRestart"
	stepRestartAlone      stepKind = "RestartSingleBroker"
	stepEnableMaintenance stepKind = "EnableMaintenance"
	stepWaitLeadership    stepKind = "WaitForLeadershipDrain"
	stepRestartPod        stepKind = "RestartPod"
	stepDeletePod         stepKind = "DeletePod"
	stepSuspendRestart    stepKind = "SuspendRestart"
	stepWaitRestart       stepKind = "WaitForRestart"
	stepFinishRestart     stepKind = "FinishRestart"
)

// What each step writes, calls and relies on is in the step table (steps.go).

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
	{"Restarting", "admin API did not answer", func(o observation) bool {
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
	{"Draining", "leadership still moving away", func(o observation) bool {
		return draining(o) && o.Rollout.Maintenance == maintenanceDraining
	}, stepWaitLeadership},
	{"Draining", "leadership drained", draining, stepRestartPod},
	{"Restarting", "old pod being deleted", func(o observation) bool { return o.Rollout.OldPodDeleting }, stepWaitRestart},
	{"Restarting", "old pod still there, a fact the restart relies on does not hold", func(o observation) bool {
		return !o.Rollout.OldPodGone && !restartFactsHold(o)
	}, stepSuspendRestart},
	{"Restarting", "old pod still there", func(o observation) bool { return !o.Rollout.OldPodGone }, stepDeletePod},
	{"Restarting", "new pod not ready or broker not back", func(o observation) bool { return !o.Rollout.Back }, stepWaitRestart},
	{"Restarting", "broker back", func(observation) bool { return true }, stepFinishRestart},
}

// rolloutTransitions: no broker is being restarted and C = D. The first row that matches wins.
var rolloutTransitions = []transition{
	{"Steady", "every pod is up to date", func(o observation) bool { return o.Rollout.Outdated == 0 }, stepNone},
	{"RollingOut", "admin API did not answer", func(o observation) bool {
		return o.AdminUnavailable || o.Rollout.Next.Status == memberUnknown
	}, stepWaitAdmin},
	{"RollingOut", "a broker's pod is not ready", func(o observation) bool { return !o.Rollout.AllReady }, stepWaitPods},
	{"RollingOut", "health gate closed", gateClosed, stepWaitHealthy},
	{"RollingOut", "broker ID not known", func(o observation) bool { return !o.Rollout.Next.IDKnown }, stepWaitBrokerID},
	{"RollingOut", "next broker is not an active member", func(o observation) bool {
		return o.Rollout.Next.Status != memberActive
	}, stepWaitPods},
	// Redpanda refuses maintenance mode on a single-broker cluster (admin server.cc,
	// start_broker_maintenance_handler): there is no one to move leadership to.
	{"RollingOut", "single broker: nothing to drain to", func(o observation) bool { return o.Current == 1 }, stepRestartAlone},
	{"RollingOut", "next broker to restart", func(observation) bool { return true }, stepStartRestart},
}

// decideRollout names the rollout's step, for an observation with no decommission under way.
func decideRollout(o observation, table []transition) step {
	for _, t := range table {
		if !t.match(o) {
			continue
		}
		s := step{Kind: t.Then, Reason: fmt.Sprintf("%s: %s (%d of %d brokers outdated)", t.State, t.When, o.Rollout.Outdated, o.Current)}
		switch {
		case o.Rollout.Restart != nil:
			id := o.Rollout.Restart.NodeID
			s.Broker = &id
			s.Reason = fmt.Sprintf("%s: %s (pod %s)", t.State, t.When, o.Rollout.Restart.Pod)
		case o.Rollout.Next.IDKnown:
			id := o.Rollout.Next.ID
			s.Broker = &id
		}
		if t.Then == stepWaitHealthy || t.Then == stepSuspendRestart {
			s.Reason += ": " + restartFactsReason(o)
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

// observeRollout reads what the pods say about the rollout: which pods below C were made from
// another template than bc's, whether all of them are Ready, and how R's pod is doing. The
// admin API's part (the next broker's ID, maintenance mode, whether R's broker is back) is
// filled in by observe.
func observeRollout(bc *v1alpha1.BrokerCluster, sts *appsv1.StatefulSet, pods map[int]*corev1.Pod) rollout {
	revision := templateRevision(bc, sts)
	r := rollout{Restart: bc.Status.Restart, AllReady: true, Revision: revision}
	for ordinal := int(bc.Status.CurrentReplicas) - 1; ordinal >= 0; ordinal-- {
		p := pods[ordinal]
		if p == nil || !isPodReady(p) {
			r.AllReady = false
		}
		if p == nil || p.DeletionTimestamp != nil {
			continue // the StatefulSet makes its replacement from the current template
		}
		if podRevision(p) == revision {
			r.Updated++
			continue
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
		r.PodReady = !r.OldPodGone && !r.OldPodDeleting && isPodReady(p)
		r.Back = r.OldPodGone && p != nil && isPodReady(p)
	}
	return r
}

// deleteRestartingPod deletes the pod recorded in status.restart, by its recorded UID: a pod
// that is already gone, or replaced by one with another UID, is left alone.
func (c *Controller) deleteRestartingPod(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster) error {
	r := bc.Status.Restart
	if r == nil || r.PodUID == "" {
		return nil
	}
	uid := types.UID(r.PodUID)
	err := nc.pods(bc.Namespace).Delete(ctx, r.Pod, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case err == nil:
		c.cfg.Recorder.Eventf(bc, corev1.EventTypeNormal, "DeletePod", "broker %d: deleted pod %s (uid %s) to restart it", r.NodeID, r.Pod, r.PodUID)
		return nil
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		klog.FromContext(ctx).V(2).Info("Restarting pod already gone", "pod", r.Pod, "uid", r.PodUID)
		return nil
	}
	return fmt.Errorf("delete pod %s/%s to restart broker %d: %w", bc.Namespace, r.Pod, r.NodeID, err)
}

// restartFactsReason names what holds a rollout back: the health gate's problems, a broker
// down, or the pod not Ready.
func restartFactsReason(o observation) string {
	switch {
	case o.Rollout.Restart != nil && !o.Rollout.PodReady:
		return fmt.Sprintf("%s: pod %s is not Ready", factPodReady, o.Rollout.Restart.Pod)
	case o.Rollout.Restart != nil && !o.Health.healthy():
		return fmt.Sprintf("%s: %s", factHealthGate, o.Health)
	case o.Rollout.Restart != nil && !o.Rollout.OthersUp:
		return fmt.Sprintf("%s: the admin API lists another broker as down", factOthersUp)
	}
	return o.Health.String()
}
