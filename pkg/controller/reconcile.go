package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	"github.com/broker-operator/broker-operator/pkg/controller/trace"
)

// result says when to look at a key again regardless of events.
type result struct {
	RequeueAfter time.Duration
}

// reconcile is one reconcile of one BrokerCluster: the controller and the caches that serve
// it, the objects as read, and what the brokers showed. It lives for one call of sync; what
// lives across reconciles stays on the Controller.
type reconcile struct {
	c    *Controller
	nc   *namespaceCache
	bc   *v1alpha1.BrokerCluster
	sts  *appsv1.StatefulSet
	pods map[int]*corev1.Pod
	obs  step.Observation
	// view is the brokers list the admin API gave, nil when it was not asked.
	view *brokers.View
	// adminErr is why the admin API could not be used this reconcile, if it could not.
	adminErr error
	// templateMayGrow: growVolumes found that every claim's StorageClass allows expansion, so
	// the StatefulSet's claim template may be made with spec.storage.size (templategrowth.go).
	templateMayGrow bool
	// whole is the BrokerCluster of a cluster with pools, as read; bc is then the focus view
	// of the pool the reconcile looks at (pools.go). nil for a cluster without pools.
	whole *v1alpha1.BrokerCluster
	// pools are a cluster with pools' pools, and focus the one looked at.
	pools []poolSet
	focus string
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
	ctx = brokers.WithDeadline(klog.NewContext(ctx, logger), time.Now().Add(c.cfg.AdminDeadline))

	r := &reconcile{c: c, nc: nc}
	if err := r.readObjects(ctx, ns, name); err != nil {
		return result{}, err
	}
	if r.bc == nil {
		c.forget(key, ns, name)
		logger.V(4).Info("BrokerCluster is gone; its owned objects go by garbage collection")
		return result{}, nil
	}
	if r.bc.DeletionTimestamp != nil {
		return result{}, nil // being deleted: nothing to scale
	}
	if step.IsPaused(r.bc) {
		return r.holdPaused(ctx)
	}
	r.tellResumed()
	return r.run(ctx)
}

// run takes the reconcile from its objects to its one step, and what follows it.
func (r *reconcile) run(ctx context.Context) (result, error) {
	// Certificates (certificates.go) first: until cert-manager has written every Secret the
	// pods would mount, nothing else is done.
	waitCerts, certRecheck, err := r.syncCertificates(ctx)
	if err != nil || waitCerts {
		return result{RequeueAfter: certRecheck}, err
	}
	if step.HasPools(r.bc) {
		return r.runPools(ctx)
	}
	if err := r.readPods(); err != nil {
		return result{}, err
	}
	if err := r.readRestartingPod(ctx); err != nil {
		return result{}, err
	}
	recheck, err := r.deleteClaimlessPods(ctx)
	if err != nil {
		return result{}, err
	}
	// Before any step: a pod waits for its facts to start, whatever the admin API says.
	if err := r.recordBrokerFacts(ctx); err != nil {
		return result{}, err
	}
	// Cluster properties (clusterconfig.go) go first: a broker that waits for a restart for one
	// is a broker the rollout restarts.
	configRestarts, configRecheck, err := r.syncClusterConfig(ctx)
	if err != nil {
		return result{}, err
	}
	// Volumes (volumes.go) before the decision: a pod whose file system waits for a restart
	// is one the rollout restarts. A claim that cannot be read or written does not hold the
	// step back; its error comes back after it, so the queue backs off.
	volumesRecheck, volumesErr := r.growVolumes(ctx)
	lostRecheck := r.observe(ctx, configRestarts)
	// act works on a copy: what the step writes is its own, and the stalled-pod check below
	// reads the cluster as it was decided on.
	res, err := r.act(ctx, brokers.ExplainWait(step.Decide(r.obs), r.adminErr))
	// A missing pod is looked after even when the step failed: the StatefulSet controller does
	// not wait for the brokers' admin API.
	stalled, stallErr := r.resyncStalledStatefulSet(ctx)
	if err == nil {
		err = stallErr
	}
	if err == nil {
		err = volumesErr
	}
	if err != nil {
		return res, err
	}
	// A Pending pod's grace, an unschedulable one's, or a missing pod's, ends with no event to
	// say so.
	unschedulable := unschedulableRecheck(r.pods, r.bc.Status.CurrentReplicas, r.c.cfg.Clock.Now())
	res.RequeueAfter = sooner(res.RequeueAfter, sooner(recheck, sooner(stalled, sooner(configRecheck, sooner(volumesRecheck, sooner(lostRecheck, sooner(certRecheck, unschedulable)))))))
	return res, nil
}

// readObjects reads the BrokerCluster and its StatefulSet (nil when there is none) through the
// read strategy. The BrokerCluster is nil when it is gone.
func (r *reconcile) readObjects(ctx context.Context, ns, name string) error {
	hooks := r.c.hooks()
	start := hooks.Start()
	bc, err := r.nc.readBrokerCluster(ctx, ns, name)
	if apierrors.IsNotFound(err) {
		hooks.Read(ctx, trace.Object{Resource: "brokerclusters", Namespace: ns, Name: name}, start)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read BrokerCluster %s/%s: %w", ns, name, err)
	}
	hooks.Read(ctx, trace.Object{Resource: "brokerclusters", Namespace: ns, Name: name, UID: bc.UID, ResourceVersion: bc.ResourceVersion, Found: true}, start)
	start = hooks.Start()
	sts, err := r.nc.readStatefulSet(ctx, ns, name)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("read StatefulSet %s/%s: %w", ns, name, err)
	}
	read := trace.Object{Resource: "statefulsets", Namespace: ns, Name: name}
	if err != nil {
		sts = nil
	} else {
		read.UID, read.ResourceVersion, read.Found = sts.UID, sts.ResourceVersion, true
	}
	hooks.Read(ctx, read, start)
	klog.FromContext(ctx).V(4).Info("Reconciling", "readStrategy", r.nc.strategy.String(),
		"brokerClusterResourceVersion", bc.ResourceVersion, "statefulSetResourceVersion", read.ResourceVersion,
		"desiredReplicas", bc.Spec.Replicas, "currentReplicas", bc.Status.CurrentReplicas,
		"decommissioningBroker", step.OptionalID(bc.Status.DecommissioningBroker))
	r.bc, r.sts = bc, sts
	return nil
}

// readPods reads the cluster's pods, by ordinal, from the pod cache.
func (r *reconcile) readPods() error {
	podList, err := objects.ClusterPods(r.nc.listers().pods, r.bc)
	if err != nil {
		return fmt.Errorf("list pods of %s: %w", clusterKey(r.bc), err)
	}
	r.pods = brokerpod.ByOrdinal(podList, r.bc.Name)
	return nil
}

// forget drops what the controller keeps about a BrokerCluster that is gone.
func (c *Controller) forget(key, ns, name string) {
	c.brokers.Forget(key)
	c.metrics.ghostBrokers.DeleteLabelValues(ns, name)
	c.metrics.certExpiry.forget(ns, name)
	c.stalled.forgetCluster(key)
	c.templates.Forget(key)
}

// sooner returns the shorter of two requeue delays, where 0 means none.
func sooner(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// observe gathers what decide needs (step.Observation): the status, what the pods say about
// the rollout (step.ObserveRollout), what a scale-up waits for (leftovers.go), and the brokers'
// view (brokers.Admin.Observe), and the brokers whose volume's node is gone (lostnodes.go).
// configRestarts are the brokers that wait for a restart for a cluster property
// (syncClusterConfig). It returns when to look at a lost broker again.
func (r *reconcile) observe(ctx context.Context, configRestarts map[int32]bool) time.Duration {
	bc, st := r.bc, r.bc.Status
	r.observePods(configRestarts)
	r.obs.Leftovers = leftoverPods(r.pods, st.CurrentReplicas)
	if r.obs.Leftovers == 0 && st.DecommissioningBroker == nil && st.CurrentReplicas < bc.Spec.Replicas {
		r.obs.Leftovers = r.condemnedClaims(ctx, st.CurrentReplicas, bc.Spec.Replicas)
	}
	// Before the admin API: a lost broker makes it asked, for the ID its pod ran.
	recheck := r.findLostNodes(ctx)
	r.view, r.adminErr = r.c.brokers.Observe(ctx, bc, r.pods, &r.obs)
	r.nameLostBrokers()
	return recheck
}

// observePods gathers the part of the observation that the status and the pods give, asking the
// brokers nothing: what the paused path's disruption preview rests on too (paused.go).
func (r *reconcile) observePods(configRestarts map[int32]bool) {
	bc, st := r.bc, r.bc.Status
	r.obs = step.Observation{
		Cluster:         bc.Name,
		Desired:         bc.Spec.Replicas,
		Current:         st.CurrentReplicas,
		Decommissioning: st.DecommissioningBroker,
		AdminCheck:      !r.c.cfg.Guards.SkipAdminCheck,
		SkipHealthGate:  bc.Spec.UnsafeSkipHealthGate,
		Rollout:         step.ObserveRollout(bc, r.c.templates.Revision(bc, r.seeds()), r.pods, configRestarts, r.c.cfg.Clock.Now()),
		Victim:          step.Victim{Ordinal: step.NextToGo(st.CurrentReplicas)},
		Window:          step.ObserveWindow(bc.Spec.MaintenanceWindows, r.c.cfg.Clock.Now()),
	}
	r.obs.Rollout.SuperuserHold = superuserHold(bc, r.pods, r.obs.Rollout.Order)
	r.nameTemplateChanges()
}

// seeds is the cluster's founding seed count: the StatefulSet's record, or, while the
// StatefulSet is made again for its claim template (templategrowth.go), what the pods say.
func (r *reconcile) seeds() int32 {
	return objects.Seeds(r.sts, r.pods, r.bc.Status.CurrentReplicas)
}

// nameTemplateChanges names, for each pod the rollout restarts because it was made from another
// template, the template fields it does not have, for the restart's events and conditions.
func (r *reconcile) nameTemplateChanges() {
	if len(r.obs.Rollout.Order) > 0 {
		r.nameChangesFrom(r.c.templates.Get(r.bc, r.seeds()))
	}
}

// nameChangesFrom names, for each pod of the rollout's order made from another template than
// template, the template fields it does not have.
func (r *reconcile) nameChangesFrom(template corev1.PodTemplateSpec) {
	order := r.obs.Rollout.Order
	for i, p := range order {
		if pod := r.pods[int(p.Ordinal)]; pod != nil && p.Template {
			order[i].Fields = objects.TemplateChanges(pod, template)
		}
	}
}
