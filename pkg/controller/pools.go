package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// A cluster with pools (step.HasPools) is reconciled one pool at a time: step.PlanPools picks
// the pool, and the reconcile then works on a focus view of the cluster (brokers.FocusView)
// whose StatefulSet, pods, C, D and B are that pool's, with the other pools in sight
// (step.Elsewhere). decide, the step table and its fresh facts are the same as for a cluster
// of one StatefulSet; the status a step writes is folded back into the whole cluster's
// (step.MergeFocusStatus), and every pool's objects follow their C (poolobjects.go).
//
// Rollouts restart each pool's brokers onto its own template, one broker at a time across the
// cluster, once no move is under way (poolrollout.go), and volumes grow pool by pool
// (poolvolumes.go); a broker whose node is gone is looked for in the pool PlanPools picks for
// it (lostnodes.go). The CRD refuses an external listener with pools.

// poolSet is one pool of a cluster with pools, as a reconcile reads it.
type poolSet struct {
	name, set        string
	desired, current int32
	// sts is the pool's StatefulSet, nil while there is none.
	sts *appsv1.StatefulSet
	// pods are the pool's pods by ordinal: those named exactly <set>-<ordinal>.
	pods map[int]*corev1.Pod
	// templateMayGrow: growPoolVolumes found that every claim's StorageClass allows the
	// pool's growth, so its claim template may be made with its storage.size (poolvolumes.go).
	templateMayGrow bool
	// template is the pool's pod template, nil for a pool the spec no longer names, and
	// rollout what its pods say of the rollout to it (observePoolRollouts, poolrollout.go).
	template *corev1.PodTemplateSpec
	rollout  step.Rollout
}

// readPools reads every pool of r.whole: its StatefulSet and its pods.
func (r *reconcile) readPools(ctx context.Context) error {
	bc := r.whole
	all, err := objects.ClusterPods(r.nc.listers().pods, bc)
	if err != nil {
		return fmt.Errorf("list pods of %s: %w", clusterKey(bc), err)
	}
	r.pools = nil
	for _, name := range step.PoolsOf(bc) {
		p := poolSet{name: name, set: objects.PoolSetName(bc, name), desired: step.PoolDesired(bc, name),
			current: step.PoolCurrent(bc, name), pods: objects.PoolPods(bc, name, all)}
		sts, err := r.nc.readStatefulSet(ctx, bc.Namespace, p.set)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return fmt.Errorf("read StatefulSet %s/%s: %w", bc.Namespace, p.set, err)
		default:
			p.sts = sts
		}
		r.pools = append(r.pools, p)
	}
	return nil
}

// poolStates are what step.PlanPools rests on: each pool's D and C, whether its broker is the
// one being decommissioned or restarted, how many of its pods wait for a restart, and the
// first of its pods below C that has not joined as far as the pods tell (made, Ready, its
// broker's ID recorded), and why, in the pod's own words when it cannot come up by itself.
func (r *reconcile) poolStates() []step.PoolState {
	owner, restarting := step.DecommissioningPool(r.whole), step.RestartPool(r.whole)
	now := r.c.cfg.Clock.Now()
	out := make([]step.PoolState, 0, len(r.pools))
	for _, p := range r.pools {
		s := step.PoolState{Name: p.name, Desired: p.desired, Current: p.current, Decommissioning: p.name == owner,
			Restarting: p.name == restarting, Outdated: p.rollout.Outdated}
		for ordinal := range int(p.current) {
			s.Unschedulable = s.Unschedulable || unschedulable(p.pods[ordinal])
		}
		for ordinal := range int(p.current) {
			pod, name := p.pods[ordinal], fmt.Sprintf("%s-%d", p.set, ordinal)
			switch {
			case pod == nil:
				s.Joining, s.JoiningWhy = name, "its pod is not made yet"
			case !brokerpod.IsReady(pod):
				s.Joining, s.JoiningWhy = name, "its pod is not Ready"
				if why, stuck := brokerpod.Stuck(pod, now); stuck {
					s.JoiningWhy = "it cannot come up: " + why
				}
			default:
				if _, identified := brokerpod.NodeID(pod); !identified {
					s.Joining, s.JoiningWhy = name, "its broker is not known yet"
				}
			}
			if s.Joining != "" {
				break
			}
		}
		out = append(out, s)
	}
	return out
}

// poolView is a reconcile that looks at pool p alone, on the whole cluster as r has it.
func (r *reconcile) poolView(p poolSet) reconcile {
	return reconcile{c: r.c, nc: r.nc, bc: brokers.FocusView(r.whole, p.name), sts: p.sts, pods: p.pods,
		whole: r.whole, focus: p.name, templateMayGrow: p.templateMayGrow}
}

// focusOn makes pool the one the reconcile looks at: r.bc becomes the focus view, r.sts and
// r.pods the pool's.
func (r *reconcile) focusOn(pool string) {
	r.focus = pool
	r.bc = brokers.FocusView(r.whole, pool)
	r.sts, r.pods = nil, map[int]*corev1.Pod{}
	for _, p := range r.pools {
		if p.name == pool {
			r.sts, r.pods = p.sts, p.pods
		}
	}
}

// elsewhere is what the observation knows of the pools the reconcile does not look at.
func (r *reconcile) elsewhere() step.Elsewhere {
	var e step.Elsewhere
	for _, p := range r.pools {
		if p.name == r.focus {
			continue
		}
		e.Pools = append(e.Pools, step.OtherPool{Name: p.name, Set: p.set, Desired: p.desired, Current: p.current})
		for ordinal, pod := range p.pods {
			id, known := brokerpod.NodeID(pod)
			e.Pods = append(e.Pods, step.PoolPod{Pool: p.name, Ordinal: int32(ordinal), ID: id, IDKnown: known})
		}
	}
	return e
}

// runPools is run (reconcile.go) for a cluster with pools, once its certificates are there.
func (r *reconcile) runPools(ctx context.Context) (result, error) {
	r.whole = r.bc
	if err := r.readPools(ctx); err != nil {
		return result{}, err
	}
	recheck, err := r.eachPool(ctx)
	if err != nil {
		return result{}, err
	}
	// Volumes before the decision, as for a cluster without pools: a pod whose file system
	// waits for a restart is one the rollout restarts; an error comes back after the step.
	volumesRecheck, volumesErr := r.growPoolVolumes(ctx)
	configRestarts, configRecheck, err := r.syncPoolsClusterConfig(ctx)
	if err != nil {
		return result{}, err
	}
	r.observePoolRollouts(configRestarts)
	states := r.poolStates()
	if leader := r.leaderPool(ctx, states); leader != "" {
		for i := range states {
			states[i].Leader = states[i].Name == leader
		}
	}
	plan := step.PlanPools(states)
	r.focusOn(plan.Pool)
	if err := r.readRestartingPod(ctx); err != nil {
		return result{}, err
	}
	lostRecheck := r.observeFocus(ctx, plan)
	s := r.holdForJoining(step.Decide(r.obs), plan)
	if s.Kind != step.WaitForJoiningBrokers && s.Kind != step.None {
		s.Reason = "pool " + r.focus + ": " + s.Reason
	}
	res, err := r.act(ctx, brokers.ExplainWait(s, r.adminErr))
	// A missing pod of any pool is looked after even when the step failed (stalledpods.go).
	stalled, stallErr := r.resyncStalledPools(ctx)
	if err == nil {
		err = stallErr
	}
	if err == nil {
		err = volumesErr
	}
	if err != nil {
		return res, err
	}
	res.RequeueAfter = sooner(res.RequeueAfter, sooner(recheck, sooner(configRecheck, sooner(volumesRecheck, sooner(stalled, lostRecheck)))))
	return res, nil
}

// syncPoolsClusterConfig applies spec.clusterConfig (clusterconfig.go), the whole cluster's,
// through a view of the first pool with a Ready broker to ask, and returns the brokers, of any
// pool, that wait for a restart for a property. Its status write, if any, becomes r.whole.
func (r *reconcile) syncPoolsClusterConfig(ctx context.Context) (map[int32]bool, time.Duration, error) {
	for _, p := range r.pools {
		if brokerpod.ReadyBelow(p.pods, p.current) == 0 {
			continue
		}
		v := r.poolView(p)
		view := v.bc
		restarts, recheck, err := v.syncClusterConfig(ctx)
		if err != nil {
			return nil, 0, err
		}
		if v.bc != view {
			r.whole = v.bc // the BrokerCluster as its status write left it
		}
		return restarts, recheck, nil
	}
	return nil, 0, nil
}

// eachPool does for every pool what run does for a cluster's one StatefulSet before the
// decision: a pod Pending without its claim is deleted (claimless.go), and each running
// broker's facts are recorded on its pod (recordplacement.go).
func (r *reconcile) eachPool(ctx context.Context) (time.Duration, error) {
	var recheck time.Duration
	for i, p := range r.pools {
		view := r.poolView(p)
		again, err := view.deleteClaimlessPods(ctx)
		if err != nil {
			return 0, err
		}
		r.pools[i].pods = view.pods
		if err := view.recordBrokerFacts(ctx); err != nil {
			return 0, err
		}
		recheck = sooner(recheck, again)
	}
	return recheck, nil
}

// observeFocus gathers the observation of the focus pool: its D, C, B and next broker to go,
// its rollout when the plan looks at it (no move under way, or a restart to go on with), its
// brokers whose node is gone when the plan looks for them, the other pools in sight, and the
// brokers' view. It returns when to look at a lost broker again.
func (r *reconcile) observeFocus(ctx context.Context, plan step.PoolPlan) time.Duration {
	bc, st := r.bc, r.bc.Status
	r.obs = step.Observation{
		Cluster:         objects.FocusSet(bc),
		Desired:         bc.Spec.Replicas,
		Current:         st.CurrentReplicas,
		Decommissioning: st.DecommissioningBroker,
		AdminCheck:      !r.c.cfg.Guards.SkipAdminCheck,
		SkipHealthGate:  bc.Spec.UnsafeSkipHealthGate,
		Victim:          step.Victim{Ordinal: step.NextToGo(st.CurrentReplicas)},
		Window:          step.ObserveWindow(bc.Spec.MaintenanceWindows, r.c.cfg.Clock.Now()),
		Elsewhere:       r.elsewhere(),
	}
	if plan.Rollout {
		r.observeFocusRollout()
	} else {
		r.obs.Rollout.AllReady = true
	}
	r.obs.Leftovers = leftoverPods(r.pods, st.CurrentReplicas)
	if r.obs.Leftovers == 0 && st.DecommissioningBroker == nil && st.CurrentReplicas < bc.Spec.Replicas {
		r.obs.Leftovers = r.condemnedClaims(ctx, st.CurrentReplicas, bc.Spec.Replicas)
	}
	var recheck time.Duration
	if plan.LostNodes {
		recheck = r.findLostNodes(ctx)
		r.obs.LostNodes.OthersReady = r.obs.LostNodes.OthersReady && r.otherPoolsReady()
	}
	r.view, r.adminErr = r.c.brokers.Observe(ctx, bc, r.pods, &r.obs)
	r.nameLostBrokers()
	return recheck
}

// otherPoolsReady reports whether every pod below C of the pools the reconcile does not look
// at is there and Ready: a lost broker is brought back only while every other broker is.
func (r *reconcile) otherPoolsReady() bool {
	for _, p := range r.pools {
		if p.name != r.focus && brokerpod.ReadyBelow(p.pods, p.current) < p.current {
			return false
		}
	}
	return true
}

// holdForJoining keeps a pool's brokers from leaving while another pool's broker has not
// joined: as the pods tell (plan.Hold), or, for a pool about to shrink, as the members list
// tells once it was read. A wait for the admin API stays what it is.
func (r *reconcile) holdForJoining(s step.Step, plan step.PoolPlan) step.Step {
	if s.Kind == step.WaitForAdminAPI {
		return s
	}
	takesAway := step.Rows[s.Kind].Irreversible != step.Reversible || s.Kind == step.AdoptDrain
	if plan.Hold != "" && (takesAway || s.Kind == step.None) {
		return step.Step{Kind: step.WaitForJoiningBrokers, Reason: plan.Hold}
	}
	shrinking := r.obs.Current > r.obs.Desired && r.obs.Decommissioning == nil
	if !shrinking || r.view == nil {
		return s
	}
	if pod, why := r.view.NotJoined(); pod != "" {
		return step.Step{Kind: step.WaitForJoiningBrokers, Reason: fmt.Sprintf(
			"pool %s's brokers leave only once every other pool's have joined: pod %s has not joined the cluster yet (%s)", r.focus, pod, why)}
	}
	return s
}

// poolCounts are each pool's Ready and up-to-date pods below its C, for status.pools: the
// focus pool's C as the step left it (focusCurrent), the others' as read.
func (r *reconcile) poolCounts(focusCurrent int32) map[string]step.PoolCounts {
	out := map[string]step.PoolCounts{}
	for _, p := range r.pools {
		current := p.current
		if p.name == r.focus {
			current = focusCurrent
		}
		c := step.PoolCounts{Ready: brokerpod.ReadyBelow(p.pods, current), Gone: p.sts == nil && len(p.pods) == 0}
		if p.sts != nil {
			revision := p.sts.Spec.Template.Annotations[objects.AnnotationTemplateHash]
			for ordinal, pod := range p.pods {
				if ordinal < int(current) && brokerpod.Revision(pod) == revision {
					c.Updated++
				}
			}
		}
		out[p.name] = c
	}
	return out
}

// wholeStatus folds next, the focus view's status after step s, into the whole cluster's.
func (r *reconcile) wholeStatus(s step.Step, next v1alpha1.BrokerClusterStatus, now time.Time) v1alpha1.BrokerClusterStatus {
	merged := step.MergeFocusStatus(r.whole, r.focus, next, r.poolCounts(next.CurrentReplicas))
	step.PoolConditions(r.whole, s, &merged, now)
	after := *r.whole
	after.Status = merged
	merged.DisruptionPreview = r.poolsPreview(&after, next.DisruptionPreview)
	return merged
}
