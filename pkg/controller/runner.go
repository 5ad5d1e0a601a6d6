package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// The table runner. act runs step s's row of the step table (internal/step/table.go): its call
// if it comes first, the status write, its call if it comes after, a ghost broker's
// decommission (its own row), then the owned objects, which follow the new currentReplicas.
// Before an irreversible call or write it reads the row's facts afresh (brokers.Admin.CheckFacts).
// The runner knows no step by name: everything a step does is in its row.

// act runs s. It works on its own copy of the reconcile (a value receiver): the status it
// writes becomes the copy's BrokerCluster, which the calls and writes after it use.
func (r reconcile) act(ctx context.Context, s step.Step) (result, error) {
	row := step.Rows[s.Kind]
	ghostsBefore := r.bc.Status.GhostBrokers
	if row.Call != step.CallNone && row.Order == step.CallBeforeWrite {
		if err := r.call(ctx, s, row); err != nil {
			return r.stepFailed(ctx, s, err)
		}
	}
	if row.Irreversible == step.IrreversibleWrite {
		if err := r.c.brokers.CheckFacts(ctx, r.bc, s, row.Facts, r.view); err != nil {
			return r.stepFailed(ctx, s, err)
		}
	}
	ghost := step.GhostToDecommission(r.bc.Spec.DecommissionGhostBrokers, s, r.obs)
	updated, err := r.writeStatus(ctx, s, row, ghost != nil)
	if err != nil {
		return result{}, err
	}
	r.bc = updated
	if row.Backoff {
		if r.adminErr == nil { // health_overview did not answer; observe logged why
			return result{}, fmt.Errorf("admin API of %s: %s", clusterKey(r.bc), s.Reason)
		}
		return result{}, fmt.Errorf("admin API of %s: %w", clusterKey(r.bc), r.adminErr)
	}
	if row.Call != step.CallNone && row.Order == step.CallAfterWrite {
		if err := r.call(ctx, s, row); err != nil {
			// The write is the record: the next reconcile takes the step again, facts afresh.
			return r.stepFailed(ctx, s, err)
		}
	}
	if ghost != nil {
		if err := r.decommissionGhost(ctx, *ghost); err != nil {
			return result{}, err
		}
	}
	return r.follow(ctx, ghostsBefore, row)
}

// call makes the row's call, after a fresh check of its facts when the call is irreversible.
func (r *reconcile) call(ctx context.Context, s step.Step, row step.Row) error {
	if row.Irreversible == step.IrreversibleCall {
		if err := r.c.brokers.CheckFacts(ctx, r.bc, s, row.Facts, r.view); err != nil {
			return err
		}
	}
	return r.makeCall(ctx, s, row.Call)
}

// makeCall makes one call of the step table on s's broker.
func (r *reconcile) makeCall(ctx context.Context, s step.Step, call step.Call) error {
	switch call {
	case step.CallDecommission:
		return r.c.brokers.Decommission(ctx, r.bc, *s.Broker)
	case step.CallRecommission:
		return r.c.brokers.Recommission(ctx, r.bc, *s.Broker)
	case step.CallMaintenanceOn:
		return r.c.brokers.SetMaintenance(ctx, r.bc, *s.Broker, true)
	case step.CallMaintenanceOff:
		return r.c.brokers.SetMaintenance(ctx, r.bc, *s.Broker, false)
	case step.CallDeletePod:
		return r.deleteRestartingPod(ctx)
	case step.CallDeleteStuckPod:
		return r.deleteStuckPod(ctx, s)
	case step.CallRecoverLostBroker:
		return r.recoverLostBroker(ctx, s)
	}
	return nil
}

// decommissionGhost runs the DecommissionGhostBroker row for a ghost broker, after the status
// write that recorded the ghost list it was read from: its facts afresh, then, once they hold,
// the decision is counted and told, and the call made.
func (r *reconcile) decommissionGhost(ctx context.Context, id int32) error {
	s := step.Step{Kind: step.DecommissionGhostBroker, Broker: &id, Reason: step.GhostReason(id)}
	row := step.Rows[s.Kind]
	if err := r.c.brokers.CheckFacts(ctx, r.bc, s, row.Facts, r.view); err != nil {
		return err
	}
	r.record(ctx, s)
	r.c.cfg.Recorder.Event(r.bc, corev1.EventTypeNormal, string(s.Kind), s.Reason)
	return r.makeCall(ctx, s, row.Call)
}

// stepFailed handles a step whose facts did not hold or whose call failed. A fact that does not
// hold makes the cluster wait, Degraded, with the fact named; an admin API that cannot be
// reached as configured degrades the cluster; anything else is retried with backoff.
func (r *reconcile) stepFailed(ctx context.Context, s step.Step, err error) (result, error) {
	var fe *step.FactError
	if errors.As(err, &fe) {
		r.c.metrics.guardFired.WithLabelValues(guardFreshFacts).Inc()
		klog.FromContext(ctx).V(2).Info("Step refused: a fact it relies on does not hold", "step", s.Kind, "broker", step.OptionalID(s.Broker), "fact", fe.Fact, "why", fe.Why)
		wait := *r
		wait.adminErr = nil
		return wait.act(ctx, step.Step{Kind: step.WaitFor(fe.Fact), Broker: s.Broker, Reason: fmt.Sprintf("%s waits: %v", step.Subject(s), fe)})
	}
	if step.Rows[s.Kind].Order == step.CallAfterWrite || !brokers.WaitsOnAdmin(err) {
		return result{}, err
	}
	wait := reconcile{c: r.c, nc: r.nc, bc: r.bc, sts: r.sts, adminErr: err, whole: r.whole, pools: r.pools, focus: r.focus}
	return wait.act(ctx, step.Step{Kind: step.WaitForAdminAPI, Broker: s.Broker, Reason: fmt.Sprintf("%s waits: %s", step.Subject(s), brokers.ProblemOf(err).Message)})
}

// writeStatus makes the step's status write, under the BrokerCluster's resourceVersion when
// the row asks for a precondition (or a ghost's decommission follows), and returns the
// BrokerCluster as written.
func (r *reconcile) writeStatus(ctx context.Context, s step.Step, row step.Row, ghost bool) (*v1alpha1.BrokerCluster, error) {
	bc := r.bc
	current, decommissioning, lc := step.Change(bc, s, r.obs, r.view != nil)
	precondition := ""
	if (row.Precondition || ghost) && !r.c.cfg.Guards.SkipPrecondition {
		precondition = bc.ResourceVersion
	}
	if row.AdminCheckAvoidsCall {
		r.c.metrics.guardFired.WithLabelValues(guardAdminCheck).Inc() // a second decommission call avoided
	}
	r.record(ctx, s)
	next := step.NextStatus(bc, s, step.Write{Current: current, Decommissioning: decommissioning,
		ReadyReplicas: brokerpod.ReadyBelow(r.pods, current), Lifecycle: lc, Admin: brokers.ProblemOf(r.adminErr),
		Selector: labels.SelectorFromSet(objects.SelectorLabels(bc)).String(), MembershipReadFrom: r.c.brokers.MembershipReadFrom(bc),
		NextWindow: r.obs.Window.Next,
		LostNodes:  step.LostStatus(r.obs.LostNodes.Brokers), LostNodesKnown: r.obs.LostNodes.Known}, r.c.cfg.Clock.Now())
	if row.ReportsDrain {
		if stalled, ok := r.c.brokers.CheckDrain(ctx, bc, *s.Broker, &next); ok {
			r.c.cfg.Recorder.Event(bc, corev1.EventTypeWarning, ReasonDrainStalled, stalled)
		}
	}
	if r.whole != nil {
		// A cluster with pools: bc is the focus view, and the whole cluster's status is written.
		bc, next = r.whole, r.wholeStatus(s, next, r.c.cfg.Clock.Now())
	}
	updated, err := r.patchStatus(ctx, bc, s, next, precondition)
	if err != nil || r.whole == nil {
		return updated, err
	}
	return r.refocus(updated), nil
}

// patchStatus writes next over bc's status under precondition, and tells the step's events.
func (r *reconcile) patchStatus(ctx context.Context, bc *v1alpha1.BrokerCluster, s step.Step, next v1alpha1.BrokerClusterStatus, precondition string) (*v1alpha1.BrokerCluster, error) {
	row := step.Rows[s.Kind]
	patch := step.StatusPatch(bc.Status, next, precondition)
	if patch == nil {
		r.tell(s, &bc.Status, &next)
		return bc, nil
	}
	updated, err := r.nc.brokerClusters(bc.Namespace).Patch(ctx, bc.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		if row.Call != step.CallNone && row.Order == step.CallBeforeWrite && !row.Precondition {
			r.tell(s, &bc.Status, &bc.Status) // the call was made; the status it writes is not its record
		}
		if apierrors.IsConflict(err) && precondition != "" {
			r.c.metrics.guardFired.WithLabelValues(guardPrecondition).Inc()
			klog.FromContext(ctx).V(2).Info("Decision refused: the BrokerCluster changed since it was read", "step", s.Kind, "broker", step.OptionalID(s.Broker), "resourceVersion", precondition)
			r.c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "StaleRead",
				"not done, because the BrokerCluster changed since it was read (resourceVersion %s); the next reconcile decides again: %s", precondition, s.Reason)
		}
		return nil, fmt.Errorf("patch status of %s: %w", clusterKey(bc), err)
	}
	r.tell(s, &bc.Status, &updated.Status)
	return updated, nil
}

// follow does what comes after a step's calls: the ghost report, the owned objects (the broker
// pods' service account first), the pods' broker IDs, and the requeue the row asks for.
func (r *reconcile) follow(ctx context.Context, ghostsBefore []int32, row step.Row) (result, error) {
	r.reportGhosts(ctx, ghostsBefore)
	if err := r.ensureServiceAccount(ctx); err != nil {
		return result{}, err
	}
	ensure := r.ensureOwned
	if r.whole != nil {
		ensure = r.ensurePools
	}
	if err := ensure(ctx, r.bc.Status.CurrentReplicas); err != nil {
		return result{}, err
	}
	unknown := false
	if r.view != nil {
		var err error
		if unknown, err = r.annotatePods(ctx); err != nil {
			return result{}, err
		}
	}
	// A Ready pod whose broker could not be named yet (its broker not answering node_config
	// a moment after its pod became Ready) is asked again: no event would say when it answers.
	if row.Polls || unknown {
		return result{RequeueAfter: r.c.cfg.DrainPollInterval}, nil
	}
	if row.PollsWindow {
		return result{RequeueAfter: untilWindow(r.obs.Window, r.c.cfg.Clock.Now())}, nil
	}
	return result{}, nil
}

// maxWindowWait bounds the wait for a window, so that a clock set forward or back is noticed.
const maxWindowWait = time.Hour

// untilWindow is how long to wait before looking again at a step held for the next window: until
// it opens, at most maxWindowWait; an invalid window is looked at again only when the spec changes
// (and after maxWindowWait).
func untilWindow(w step.Window, now time.Time) time.Duration {
	if w.Next.IsZero() {
		return maxWindowWait
	}
	return min(max(w.Next.Sub(now), time.Second), maxWindowWait)
}

// record logs and counts a decision, polls included; tell reports it as an event when it is
// news.
func (r *reconcile) record(ctx context.Context, s step.Step) {
	if s.Kind == step.None {
		return
	}
	r.c.metrics.decisions.WithLabelValues(string(s.Kind)).Inc()
	klog.FromContext(ctx).V(2).Info("Decision", "step", s.Kind, "broker", step.OptionalID(s.Broker), "reason", s.Reason)
}

// tell records the events of step s (step.Events), which took the BrokerCluster's status from
// before to after.
func (r *reconcile) tell(s step.Step, before, after *v1alpha1.BrokerClusterStatus) {
	for _, e := range step.Events(s, before, after) {
		r.c.cfg.Recorder.Event(r.bc, e.Type, e.Reason, e.Message)
	}
}

// reportGhosts sets the gauge and emits a Warning event when the ghosts the admin API showed
// differ from those status recorded before.
func (r *reconcile) reportGhosts(ctx context.Context, before []int32) {
	if r.view == nil {
		return
	}
	ghosts := r.obs.Ghosts
	r.c.metrics.ghostBrokers.WithLabelValues(r.bc.Namespace, r.bc.Name).Set(float64(len(ghosts)))
	if len(ghosts) == 0 || slices.Equal(before, ghosts) {
		return
	}
	klog.FromContext(ctx).Info("Ghost brokers", "brokers", ghosts)
	r.c.cfg.Recorder.Eventf(r.bc, corev1.EventTypeWarning, "GhostBrokers",
		"brokers %s are active members but not alive, and no pod of this cluster runs them; set spec.decommissionGhostBrokers to decommission them", step.GhostList(ghosts))
}
