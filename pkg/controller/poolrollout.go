package controller

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// The rollout of a cluster with pools: each pool's pods are compared with that pool's own
// template, so a change of one pool's fields restarts only its brokers and a cluster-wide
// change every pool's; step.PlanPools looks at one pool with a pod to restart at a time (the
// controller leader's last), and decide then restarts its brokers as for a cluster without
// pools, one broker at a time across the cluster since status.restart is the cluster's one.

// seedsInConfigMap reports whether the pool's pods read their seeds from the seeds ConfigMap:
// a named pool's always; the default pool's once it has had no broker, or once its StatefulSet
// says so (poolobjects.go).
func seedsInConfigMap(p poolSet, replicas int32) bool {
	return p.name != v1alpha1.DefaultPoolName || replicas == 0 ||
		(p.sts != nil && p.sts.Annotations[objects.AnnotationSeedsFrom] == objects.SeedsFromConfigMap)
}

// poolTemplate is the pod template the pool's StatefulSet has once the operator has written it
// (ensurePoolStatefulSet); nil for a pool the spec no longer names, whose brokers leave.
func (r *reconcile) poolTemplate(p poolSet) *corev1.PodTemplateSpec {
	if !seedsInConfigMap(p, p.current) {
		view := brokers.FocusView(r.whole, p.name)
		t := r.c.templates.Get(view, objects.Seeds(p.sts, p.pods, p.current))
		return &t
	}
	sts, named := objects.NewPoolStatefulSet(r.whole, p.name, p.current, r.c.cfg.ClusterDomain)
	if !named {
		return nil
	}
	return &sts.Spec.Template
}

// observePoolRollouts reads, once a reconcile, each pool's template and what its pods say about
// its rollout (step.ObserveRollout) from that template; nothing to restart for a pool the spec
// no longer names. configRestarts are the brokers, of any pool, a cluster property restarts.
func (r *reconcile) observePoolRollouts(configRestarts map[int32]bool) {
	for i := range r.pools {
		p := &r.pools[i]
		p.template, p.rollout = r.poolTemplate(*p), step.Rollout{AllReady: true}
		if p.template == nil {
			continue
		}
		// ObserveRollout names a pod <name>-<ordinal>: the pool's StatefulSet's name, for a
		// pod not Ready that the rollout waits for.
		view := brokers.FocusView(r.whole, p.name)
		view.Name = p.set
		p.rollout = step.ObserveRollout(view, p.template.Annotations[objects.AnnotationTemplateHash], p.pods, configRestarts, r.c.cfg.Clock.Now())
		p.rollout.SuperuserHold = superuserHold(r.whole, p.pods, p.rollout.Order)
	}
}

// observeFocusRollout takes the focus pool's rollout into the observation, with the template
// fields each outdated pod does not have, for the restart's events and conditions, and every
// other pool's brokers' versions beside its own, for the upgrade path (step.Upgrade).
func (r *reconcile) observeFocusRollout() {
	var others []step.BrokerVersion
	for _, p := range r.pools {
		if p.name != r.focus {
			for _, b := range p.rollout.Upgrade.Brokers {
				b.Pool = p.name
				others = append(others, b)
			}
			continue
		}
		r.obs.Rollout = p.rollout
		if p.template != nil {
			r.nameChangesFrom(*p.template)
		}
	}
	r.obs.Rollout.Upgrade.Brokers = append(slices.Clip(r.obs.Rollout.Upgrade.Brokers), others...)
}

// leaderPool names the pool whose pod runs the controller leader, when more than one pool has
// a pod to restart and nothing else is under way: the leader's pool then goes last. "" when
// it is not needed or not known (the order then is the pools' own).
func (r *reconcile) leaderPool(ctx context.Context, states []step.PoolState) string {
	outdated := 0
	for _, s := range states {
		if s.Outdated > 0 {
			outdated++
		}
	}
	if outdated < 2 || step.Moving(states) || r.whole.Status.Restart != nil {
		return ""
	}
	leader, err := r.c.brokers.ControllerLeader(ctx, brokers.FocusView(r.whole, step.DefaultPool))
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Controller leader not known; pools roll out in their order", "err", err)
		return ""
	}
	for _, p := range r.pools {
		for _, pod := range p.pods {
			if id, ok := brokerpod.NodeID(pod); ok && id == leader {
				return p.name
			}
		}
	}
	return ""
}

// poolsPreview is the disruption preview of a cluster with pools, whole as the step left it:
// the focus pool's as the step's status has it (focus, nil when no pool was looked at), each
// other pool's made from its pods and its rollout (step.Preview on its focus view), put in
// order by step.ComposePoolsPreview.
func (r *reconcile) poolsPreview(whole *v1alpha1.BrokerCluster, focus *v1alpha1.DisruptionPreview) *v1alpha1.DisruptionPreview {
	leader := -1
	if r.obs.Health.Known {
		leader = r.obs.Health.Controller
	}
	if focus != nil && focus.ControllerLeader != nil {
		leader = int(*focus.ControllerLeader)
	}
	window := step.ObserveWindow(whole.Spec.MaintenanceWindows, r.c.cfg.Clock.Now())
	var pools []step.PoolPreview
	for _, p := range r.pools {
		pp := step.PoolPreview{Pool: p.name, Preview: focus}
		for _, pod := range p.pods {
			if id, ok := brokerpod.NodeID(pod); ok && int(id) == leader {
				pp.Leader = true
			}
		}
		if p.name != r.focus || focus == nil {
			view := brokers.FocusView(whole, p.name)
			o := step.Observation{Cluster: p.set, Desired: p.desired, Current: view.Status.CurrentReplicas,
				Decommissioning: view.Status.DecommissioningBroker, Window: window, Rollout: p.rollout}
			pp.Preview = step.Preview(view, o, step.RecordedOf(view))
		}
		pools = append(pools, pp)
	}
	return step.ComposePoolsPreview(whole, pools)
}
