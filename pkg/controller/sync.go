package controller

import (
	"context"
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
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

	bc, err := c.readBrokerCluster(ctx, nc, ns, name)
	if apierrors.IsNotFound(err) {
		c.readHook("brokerclusters", ns, name, "")
		c.admin.forget(key)
		c.drains.forget(key)
		logger.V(4).Info("BrokerCluster is gone; its owned objects go by garbage collection")
		return result{}, nil
	}
	if err != nil {
		return result{}, fmt.Errorf("read BrokerCluster %s: %w", key, err)
	}
	c.readHook("brokerclusters", ns, name, bc.ResourceVersion)
	sts, err := c.readStatefulSet(ctx, nc, ns, name)
	if err != nil && !apierrors.IsNotFound(err) {
		return result{}, fmt.Errorf("read StatefulSet %s: %w", key, err)
	}
	if err != nil {
		sts = nil
	}
	c.readHook("statefulsets", ns, name, resourceVersionOf(sts))
	logger.V(4).Info("Reconciling", "readStrategy", c.cfg.ReadStrategy.String(),
		"brokerClusterResourceVersion", bc.ResourceVersion, "statefulSetResourceVersion", resourceVersionOf(sts),
		"desiredReplicas", bc.Spec.Replicas, "currentReplicas", bc.Status.CurrentReplicas,
		"decommissioningBroker", ptrString(bc.Status.DecommissioningBroker))
	if bc.DeletionTimestamp != nil {
		return result{}, nil // being deleted: nothing to scale
	}

	podList, err := c.listers(nc).pods.Pods(ns).List(labels.SelectorFromSet(selectorLabels(bc)))
	if err != nil {
		return result{}, fmt.Errorf("list pods of %s: %w", key, err)
	}
	pods := podsByOrdinal(podList, bc.Name)

	obs, view, adminErr := c.observe(ctx, bc, pods)
	s := explainWait(decide(obs), adminErr)
	return c.act(ctx, nc, bc, s, pods, view, adminErr)
}

// observe gathers what decide needs. The admin API is asked only when a decision depends on
// the brokers' view (a scale-down is pending or under way) or a ready pod's broker ID is not
// recorded yet.
func (c *Controller) observe(ctx context.Context, bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod) (observation, *brokerView, error) {
	st := bc.Status
	o := observation{
		Desired:         bc.Spec.Replicas,
		Current:         st.CurrentReplicas,
		Decommissioning: st.DecommissioningBroker,
		AdminCheck:      c.cfg.Guards.AdminCheck,
	}
	if st.CurrentReplicas > 0 {
		o.Victim.Ordinal = st.CurrentReplicas - 1
	}
	// The named Secrets are read on every reconcile, so that a missing or malformed one shows
	// as soon as it is named, not first in the middle of a scale-down.
	sec, err := c.readAdminSecurity(ctx, bc)
	if err != nil {
		o.AdminUnavailable = true
		return o, nil, err
	}
	if !needsAdmin(bc, pods) {
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
	victimOrdinal := -1
	if st.CurrentReplicas > 0 && st.DecommissioningBroker == nil && st.CurrentReplicas > bc.Spec.Replicas {
		victimOrdinal = int(o.Victim.Ordinal)
	}
	if view.identities, err = identifyPods(ctx, client, pods, view, victimOrdinal); err != nil {
		o.AdminUnavailable = true
		return o, nil, err
	}
	if o.Decommissioning != nil {
		o.Target = view.membership(*o.Decommissioning)
	}
	if st.CurrentReplicas > 0 {
		o.Victim = victimOf(o.Victim.Ordinal, view)
	}
	return o, &view, nil
}

func needsAdmin(bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod) bool {
	st := bc.Status
	if st.DecommissioningBroker != nil || st.CurrentReplicas > bc.Spec.Replicas {
		return true
	}
	for _, p := range pods {
		if _, ok := podNodeID(p); !ok && isPodReady(p) {
			return true
		}
	}
	return false
}

// act carries out step s: the status write first (it records a decision before any admin call
// that cannot be undone), then the admin call, then the owned objects, which follow the new
// currentReplicas.
func (c *Controller) act(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, s step, pods map[int]*corev1.Pod, view *brokerView, adminErr error) (result, error) {
	logger := klog.FromContext(ctx)
	current, decommissioning := bc.Status.CurrentReplicas, bc.Status.DecommissioningBroker
	precondition := ""
	guarded := func() {
		if c.cfg.Guards.Precondition {
			precondition = bc.ResourceVersion
		}
	}

	// Admin calls that come before the status write: it records their outcome.
	switch s.Kind {
	case stepDecommission:
		if err := c.decommission(ctx, bc, *s.Broker); err != nil {
			return c.adminFailed(ctx, nc, bc, s, err)
		}
	case stepRecommission:
		if err := c.recommission(ctx, bc, *s.Broker); err != nil {
			return c.adminFailed(ctx, nc, bc, s, err)
		}
	}

	switch s.Kind {
	case stepScaleUp:
		current = bc.Spec.Replicas
	case stepStartDecommission:
		decommissioning = s.Broker
		guarded()
	case stepAdoptDrain:
		decommissioning = s.Broker
		guarded()
		c.metrics.guardFired.WithLabelValues(guardAdminCheck).Inc() // a second decommission call avoided
	case stepSkipAbsent:
		current--
		guarded()
		c.metrics.guardFired.WithLabelValues(guardAdminCheck).Inc()
	case stepFinish:
		current, decommissioning = current-1, nil
	case stepCancel:
		decommissioning = nil
		// stepRecommission keeps B: Redpanda refuses a recommission late in a drain (400, invalid
		// state transition), so B is cleared only once the admin API lists the broker as active
		// again (stepCancel) or it has left (stepFinish).
	}
	c.record(ctx, bc, s)

	next := nextStatus(bc, s, current, decommissioning, readyBelow(pods, current), adminErr, c.cfg.Clock.Now())
	if s.Kind == stepWaitDrain {
		c.reportDrain(bc, &next, *s.Broker, c.checkDrain(ctx, bc, *s.Broker))
	}
	if patch := statusPatch(bc.Status, next, precondition); patch != nil {
		updated, err := nc.brokerClusters(bc.Namespace).Patch(ctx, bc.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		if err != nil {
			if apierrors.IsConflict(err) && precondition != "" {
				c.metrics.guardFired.WithLabelValues(guardPrecondition).Inc()
				logger.V(2).Info("Decision refused: the BrokerCluster changed since it was read", "step", s.Kind, "broker", ptrString(s.Broker), "resourceVersion", precondition)
				c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "StaleRead", "%s refused: the BrokerCluster changed since resourceVersion %s", s.Kind, precondition)
			}
			return result{}, fmt.Errorf("patch status of %s: %w", clusterKey(bc), err)
		}
		bc = updated
	}
	if s.Kind == stepWaitAdmin {
		return result{}, fmt.Errorf("admin API of %s: %w", clusterKey(bc), adminErr)
	}

	// Admin calls that come after the status write: it is the record that they were made.
	if s.Kind == stepStartDecommission {
		if err := c.decommission(ctx, bc, *s.Broker); err != nil {
			return result{}, err // B is recorded: the next reconcile decommissions or finishes
		}
	}

	if err := c.ensureOwned(ctx, nc, bc, current); err != nil {
		return result{}, err
	}
	if view != nil {
		if err := c.annotatePods(ctx, nc, bc, pods, *view); err != nil {
			return result{}, err
		}
	}
	switch s.Kind {
	case stepStartDecommission, stepAdoptDrain, stepDecommission, stepWaitDrain, stepWaitBrokerID, stepRecommission:
		return result{RequeueAfter: c.cfg.DrainPollInterval}, nil
	}
	return result{}, nil
}

// record logs, counts and reports a decision.
func (c *Controller) record(ctx context.Context, bc *v1alpha1.BrokerCluster, s step) {
	if s.Kind == stepNone {
		return
	}
	c.metrics.decisions.WithLabelValues(string(s.Kind)).Inc()
	klog.FromContext(ctx).V(2).Info("Decision", "step", s.Kind, "broker", ptrString(s.Broker), "reason", s.Reason)
	c.cfg.Recorder.Event(bc, eventType(s.Kind), string(s.Kind), eventMessage(s))
}

// readyBelow counts the ready pods with an ordinal below replicas.
func readyBelow(pods map[int]*corev1.Pod, replicas int32) int32 {
	var n int32
	for ordinal, p := range pods {
		if ordinal < int(replicas) && isPodReady(p) {
			n++
		}
	}
	return n
}

func (c *Controller) readHook(resource, ns, name, rv string) {
	if c.cfg.ReadHook != nil {
		c.cfg.ReadHook(resource, ns, name, rv)
	}
}

func resourceVersionOf(sts *appsv1.StatefulSet) string {
	if sts == nil {
		return ""
	}
	return sts.ResourceVersion
}

func ptrString(p *int32) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(int(*p))
}
