package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// result says when to look at a key again regardless of events.
type result struct {
	RequeueAfter time.Duration
}

// sync reconciles one BrokerCluster: read, decide one step, write, return.
func (c *Controller) sync(ctx context.Context, key string) (result, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return result{}, fmt.Errorf("bad queue key %q: %w", key, err) // cannot happen for keys from handlers
	}
	nc := c.cacheFor(ns)
	if nc == nil {
		return result{}, nil // a namespace the controller does not watch
	}
	logger := klog.FromContext(ctx).WithValues("brokercluster", klog.KRef(ns, name))
	ctx = withAdminDeadline(klog.NewContext(ctx, logger), time.Now().Add(c.cfg.AdminDeadline))

	bc, sts, err := c.readObjects(ctx, nc, ns, name)
	if err != nil {
		return result{}, err
	}
	if bc == nil {
		c.forget(key, ns, name)
		logger.V(4).Info("BrokerCluster is gone; its owned objects go by garbage collection")
		return result{}, nil
	}
	if bc.DeletionTimestamp != nil {
		return result{}, nil // being deleted: nothing to scale
	}

	podList, err := clusterPods(c.listers(nc).pods, bc)
	if err != nil {
		return result{}, fmt.Errorf("list pods of %s: %w", key, err)
	}
	pods := brokerpod.ByOrdinal(podList, bc.Name)
	recheck, err := c.deleteClaimlessPods(ctx, nc, bc, pods)
	if err != nil {
		return result{}, err
	}
	// Before any step: a pod waits for its facts to start, whatever the admin API says.
	if err := c.recordBrokerFacts(ctx, nc, bc, pods); err != nil {
		return result{}, err
	}

	// Cluster properties (clusterconfig.go) go first: a broker that waits for a restart for one
	// is a broker the rollout restarts.
	bc, configRestarts, configRecheck, err := c.syncClusterConfig(ctx, nc, bc, pods)
	if err != nil {
		return result{}, err
	}
	obs, view, adminErr := c.observe(ctx, bc, sts, pods, configRestarts)
	s := explainWait(step.Decide(obs), adminErr)
	res, err := c.act(ctx, nc, bc, s, obs, pods, view, adminErr)
	// A missing pod is looked after even when the step failed: the StatefulSet controller does
	// not wait for the brokers' admin API.
	stalled, stallErr := c.resyncStalledStatefulSet(ctx, nc, bc, sts, pods)
	if err == nil {
		err = stallErr
	}
	if err != nil {
		return res, err
	}
	// A Pending pod's grace, or a missing pod's, ends with no event to say so.
	res.RequeueAfter = sooner(res.RequeueAfter, sooner(recheck, sooner(stalled, configRecheck)))
	return res, nil
}

// readObjects reads the BrokerCluster and its StatefulSet (nil when there is none) through the
// read strategy. The BrokerCluster is nil when it is gone.
func (c *Controller) readObjects(ctx context.Context, nc *namespaceCache, ns, name string) (*v1alpha1.BrokerCluster, *appsv1.StatefulSet, error) {
	key := ns + "/" + name
	start := c.traceStart()
	bc, err := c.readBrokerCluster(ctx, nc, ns, name)
	if apierrors.IsNotFound(err) {
		c.traceRead(ctx, "brokerclusters", ns, name, "", "", false, start)
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read BrokerCluster %s: %w", key, err)
	}
	c.traceRead(ctx, "brokerclusters", ns, name, bc.UID, bc.ResourceVersion, true, start)
	start = c.traceStart()
	sts, err := c.readStatefulSet(ctx, nc, ns, name)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, fmt.Errorf("read StatefulSet %s: %w", key, err)
	}
	if err != nil {
		sts = nil
	}
	if sts != nil {
		c.traceRead(ctx, "statefulsets", ns, name, sts.UID, sts.ResourceVersion, true, start)
	} else {
		c.traceRead(ctx, "statefulsets", ns, name, "", "", false, start)
	}
	klog.FromContext(ctx).V(4).Info("Reconciling", "readStrategy", c.cfg.readStrategy.String(),
		"brokerClusterResourceVersion", bc.ResourceVersion, "statefulSetResourceVersion", resourceVersionOf(sts),
		"desiredReplicas", bc.Spec.Replicas, "currentReplicas", bc.Status.CurrentReplicas,
		"decommissioningBroker", step.OptionalID(bc.Status.DecommissioningBroker))
	return bc, sts, nil
}

// forget drops what the controller keeps about a BrokerCluster that is gone.
func (c *Controller) forget(key, ns, name string) {
	c.admin.forget(key)
	c.metrics.ghostBrokers.DeleteLabelValues(ns, name)
	c.drains.forget(key)
	c.stalled.forget(key)
	c.templates.forget(key)
}

// sooner returns the shorter of two requeue delays, where 0 means none.
func sooner(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// observe gathers what decide needs. The admin API is asked only when a decision depends on
// the brokers' view (a scale-down or a rollout is pending or under way, ghost brokers were
// reported) or a ready pod's broker ID is not recorded yet. configRestarts are the brokers
// that wait for a restart for a cluster property (syncClusterConfig).
func (c *Controller) observe(ctx context.Context, bc *v1alpha1.BrokerCluster, sts *appsv1.StatefulSet, pods map[int]*corev1.Pod, configRestarts map[int32]bool) (step.Observation, *brokerView, error) {
	st := bc.Status
	o := step.Observation{
		Cluster:         bc.Name,
		Desired:         bc.Spec.Replicas,
		Current:         st.CurrentReplicas,
		Decommissioning: st.DecommissioningBroker,
		AdminCheck:      !c.cfg.Guards.SkipAdminCheck,
		SkipHealthGate:  bc.Spec.UnsafeSkipHealthGate,
		Rollout:         observeRollout(bc, c.templateRevision(bc, sts), pods, configRestarts),
	}
	if st.CurrentReplicas > 0 {
		o.Victim.Ordinal = st.CurrentReplicas - 1
	}
	o.Leftovers = leftoverPods(pods, st.CurrentReplicas)
	if o.Leftovers == 0 && st.DecommissioningBroker == nil && st.CurrentReplicas < bc.Spec.Replicas {
		o.Leftovers = c.condemnedClaims(ctx, bc, st.CurrentReplicas, bc.Spec.Replicas)
	}
	// The named Secrets are read on every reconcile, so that a missing or malformed one shows
	// as soon as it is named, not first in the middle of a scale-down.
	sec, err := c.readAdminSecurity(ctx, bc)
	if err != nil {
		o.AdminUnavailable = true
		return o, nil, err
	}
	if !step.NeedsAdmin(bc, pods, o.Rollout) {
		return o, nil, nil
	}
	client, err := c.admin.forCluster(bc, st.CurrentReplicas, sec)
	if err != nil {
		o.AdminUnavailable = true
		return o, nil, err
	}
	client = boundByDeadline(ctx, client)
	list, err := client.Brokers(ctx)
	if err != nil {
		o.AdminUnavailable = true
		return o, nil, err
	}
	view := newBrokerView(bc.Name, list)
	if err := c.observeBrokers(ctx, client, bc, pods, &o, &view); err != nil {
		o.AdminUnavailable = true
		return o, &view, err
	}
	return o, &view, nil
}

// observeBrokers fills in the brokers' part of o from the admin API: who runs each pod, the
// membership of B, of the next to go and of the next to restart, R's maintenance mode and
// whether the others are up, and health_overview when a step behind the health gate may be
// next.
func (c *Controller) observeBrokers(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod, o *step.Observation, view *brokerView) error {
	st := bc.Status
	victimOrdinal := -1
	if st.CurrentReplicas > 0 && st.DecommissioningBroker == nil && st.CurrentReplicas > bc.Spec.Replicas {
		victimOrdinal = int(o.Victim.Ordinal)
	} else if st.DecommissioningBroker == nil && st.Restart == nil && st.CurrentReplicas == bc.Spec.Replicas && o.Rollout.Outdated > 0 {
		// The next broker to restart is asked who it is, as the next to go is, before its
		// irreversible step.
		victimOrdinal = int(o.Rollout.Next.Ordinal)
	}
	var err error
	if view.identities, err = identifyPods(ctx, client, pods, *view, victimOrdinal); err != nil {
		return err
	}
	if o.Decommissioning != nil {
		o.Target = view.membershipOf(*o.Decommissioning)
	}
	if st.CurrentReplicas > 0 {
		o.Victim = victimOf(o.Victim.Ordinal, *view)
	}
	if o.Rollout.Outdated > 0 {
		o.Rollout.Next = victimOf(o.Rollout.Next.Ordinal, *view)
	}
	if r := o.Rollout.Restart; r != nil {
		b, listed := view.byID[int(r.NodeID)]
		o.Rollout.Back = o.Rollout.Back && listed && b.IsAlive && b.MembershipStatus == admin.MembershipActive
		_, down := step.FirstDown(view.members, r.NodeID)
		o.Rollout.OthersUp = !down
		if r.Step == v1alpha1.RestartDraining {
			m, err := c.readMaintenance(ctx, client, r.NodeID)
			if err != nil {
				return err
			}
			o.Rollout.Maintenance = m
		}
	}
	if step.BehindHealthGate(*o) {
		h, err := c.readHealth(ctx, client)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Health overview did not answer; the health gate stays closed", "err", err)
		}
		o.Health = h
	}
	o.Ghosts = findGhosts(bc, *view, pods)
	return nil
}

// act runs step s's row of the step table (steps.go): its call if it comes first, the status
// write, its call if it comes after, then the owned objects, which follow the new
// currentReplicas. An irreversible call or write is preceded by a fresh check of its facts.
func (c *Controller) act(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, s step.Step, obs step.Observation, pods map[int]*corev1.Pod, view *brokerView, adminErr error) (result, error) {
	row := step.Rows[s.Kind]
	if row.Call != step.CallNone && row.Order == step.CallBeforeWrite {
		if err := c.call(ctx, nc, bc, s, row); err != nil {
			return c.stepFailed(ctx, nc, bc, s, obs, pods, view, err)
		}
	}
	if row.Irreversible == step.IrreversibleWrite {
		if err := c.checkFacts(ctx, bc, s, row.Facts); err != nil {
			return c.stepFailed(ctx, nc, bc, s, obs, pods, view, err)
		}
	}
	ghost := c.ghostToDecommission(bc, s, obs)
	updated, err := c.writeStatus(ctx, nc, bc, s, row, obs, pods, view, adminErr, ghost != nil)
	if err != nil {
		return result{}, err
	}
	if s.Kind == step.WaitForAdminAPI {
		if adminErr == nil { // health_overview did not answer; observe logged why
			return result{}, fmt.Errorf("admin API of %s: %s", clusterKey(bc), s.Reason)
		}
		return result{}, fmt.Errorf("admin API of %s: %w", clusterKey(bc), adminErr)
	}
	if row.Call != step.CallNone && row.Order == step.CallAfterWrite {
		if err := c.call(ctx, nc, updated, s, row); err != nil {
			// The write is the record: the next reconcile takes the step again, facts afresh.
			return c.stepFailed(ctx, nc, updated, s, obs, pods, view, err)
		}
	}
	return c.follow(ctx, nc, updated, bc.Status.GhostBrokers, s, row, obs, pods, view, ghost)
}

// call makes the row's call, after a fresh check of its facts when the call is irreversible.
func (c *Controller) call(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, s step.Step, row step.Row) error {
	if row.Irreversible == step.IrreversibleCall {
		if err := c.checkFacts(ctx, bc, s, row.Facts); err != nil {
			return err
		}
	}
	switch row.Call {
	case step.CallDecommission:
		return c.decommission(ctx, bc, *s.Broker)
	case step.CallRecommission:
		return c.recommission(ctx, bc, *s.Broker)
	case step.CallMaintenanceOn:
		return c.setMaintenance(ctx, bc, *s.Broker, true)
	case step.CallMaintenanceOff:
		return c.setMaintenance(ctx, bc, *s.Broker, false)
	case step.CallDeletePod:
		return c.deleteRestartingPod(ctx, nc, bc)
	}
	return nil
}

// stepFailed handles a step whose facts did not hold or whose call failed. A fact that does not
// hold makes the cluster wait, Degraded, with the fact named; an admin API that cannot be
// reached as configured degrades the cluster; anything else is retried with backoff.
func (c *Controller) stepFailed(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, s step.Step, obs step.Observation, pods map[int]*corev1.Pod, view *brokerView, err error) (result, error) {
	var fe *step.FactError
	if errors.As(err, &fe) {
		c.metrics.guardFired.WithLabelValues(guardFreshFacts).Inc()
		klog.FromContext(ctx).V(2).Info("Step refused: a fact it relies on does not hold", "step", s.Kind, "broker", step.OptionalID(s.Broker), "fact", fe.Fact, "why", fe.Why)
		wait := step.Step{Kind: step.WaitForHealthyCluster, Broker: s.Broker, Reason: fmt.Sprintf("%s waits: %v", step.Subject(s), fe)}
		return c.act(ctx, nc, bc, wait, obs, pods, view, nil)
	}
	if step.Rows[s.Kind].Order == step.CallAfterWrite || !waitsOnAdmin(err) {
		return result{}, err
	}
	_, why := adminProblem(err)
	wait := step.Step{Kind: step.WaitForAdminAPI, Broker: s.Broker, Reason: fmt.Sprintf("%s waits: %s", step.Subject(s), why)}
	return c.act(ctx, nc, bc, wait, step.Observation{}, nil, nil, err)
}

// writeStatus makes the step's status write, under the BrokerCluster's resourceVersion when
// the row asks for a precondition (or a ghost's decommission follows), and returns the
// BrokerCluster as written.
func (c *Controller) writeStatus(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, s step.Step, row step.Row, obs step.Observation, pods map[int]*corev1.Pod, view *brokerView, adminErr error, ghost bool) (*v1alpha1.BrokerCluster, error) {
	current, decommissioning, lc := step.Change(bc, s, obs, view != nil)
	precondition := ""
	if (row.Precondition || ghost) && !c.cfg.Guards.SkipPrecondition {
		precondition = bc.ResourceVersion
	}
	if row.AdminCheckAvoidsCall {
		c.metrics.guardFired.WithLabelValues(guardAdminCheck).Inc() // a second decommission call avoided
	}
	c.record(ctx, s)
	next := step.NextStatus(bc, s, step.Write{Current: current, Decommissioning: decommissioning,
		ReadyReplicas: brokerpod.ReadyBelow(pods, current), Lifecycle: lc, Admin: adminProblemOf(adminErr),
		Selector: labels.SelectorFromSet(selectorLabels(bc)).String()}, c.cfg.Clock.Now())
	if s.Kind == step.WaitForDrain {
		c.reportDrain(bc, &next, *s.Broker, c.checkDrain(ctx, bc, *s.Broker))
	}
	patch := step.StatusPatch(bc.Status, next, precondition)
	if patch == nil {
		c.tell(bc, s, &bc.Status, &next)
		return bc, nil
	}
	updated, err := nc.brokerClusters(bc.Namespace).Patch(ctx, bc.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		if row.Call != step.CallNone && row.Order == step.CallBeforeWrite && !row.Precondition {
			c.tell(bc, s, &bc.Status, &bc.Status) // the call was made; the status it writes is not its record
		}
		if apierrors.IsConflict(err) && precondition != "" {
			c.metrics.guardFired.WithLabelValues(guardPrecondition).Inc()
			klog.FromContext(ctx).V(2).Info("Decision refused: the BrokerCluster changed since it was read", "step", s.Kind, "broker", step.OptionalID(s.Broker), "resourceVersion", precondition)
			c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "StaleRead",
				"not done, because the BrokerCluster changed since it was read (resourceVersion %s); the next reconcile decides again: %s", precondition, s.Reason)
		}
		return nil, fmt.Errorf("patch status of %s: %w", clusterKey(bc), err)
	}
	c.tell(bc, s, &bc.Status, &updated.Status)
	return updated, nil
}

// follow does what comes after a step's call: a ghost's decommission, the owned objects, the
// pods' broker IDs, and the requeue the row asks for.
func (c *Controller) follow(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, ghostsBefore []int32, s step.Step, row step.Row, obs step.Observation, pods map[int]*corev1.Pod, view *brokerView, ghost *int32) (result, error) {
	if ghost != nil {
		if err := c.checkFacts(ctx, bc, step.Step{Kind: step.DecommissionGhostBroker, Broker: ghost}, step.GhostFacts); err != nil {
			return result{}, err
		}
		if err := c.decommissionGhost(ctx, bc, *ghost); err != nil {
			return result{}, err
		}
	}
	c.reportGhosts(ctx, bc, ghostsBefore, obs.Ghosts, view != nil)
	if err := c.ensureOwned(ctx, nc, bc, bc.Status.CurrentReplicas); err != nil {
		return result{}, err
	}
	if view != nil {
		if err := c.annotatePods(ctx, nc, bc, pods, *view); err != nil {
			return result{}, err
		}
	}
	if row.Polls {
		return result{RequeueAfter: c.cfg.DrainPollInterval}, nil
	}
	return result{}, nil
}

// record logs and counts a decision, polls included; tell (eventstory.go) reports it as an
// event when it is news.
func (c *Controller) record(ctx context.Context, s step.Step) {
	if s.Kind == step.None {
		return
	}
	c.metrics.decisions.WithLabelValues(string(s.Kind)).Inc()
	klog.FromContext(ctx).V(2).Info("Decision", "step", s.Kind, "broker", step.OptionalID(s.Broker), "reason", s.Reason)
}

func resourceVersionOf(sts *appsv1.StatefulSet) string {
	if sts == nil {
		return ""
	}
	return sts.ResourceVersion
}
