//go:build e2e

package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/harness"
)

// clusterRun is what happened to one cluster.
type clusterRun struct {
	name  string
	marks []harness.Mark
	steps []Step
	// stuck says why the cluster did not converge on a step in time; "" if it always did.
	stuck string
}

func (r *clusterRun) decommissions() int {
	n := 0
	for _, s := range r.steps {
		if !s.End.IsZero() && s.To < s.From {
			n += int(s.From - s.To)
		}
		if !s.End.IsZero() {
			n += int(s.Moved)
		}
	}
	return n
}

// newBrokerCluster is a BrokerCluster of the soak.
func newBrokerCluster(ns, name string, replicas int32, adminPort int) *v1alpha1.BrokerCluster {
	return harness.NewBrokerCluster(ns, name, "registry.invalid/broker:soak", replicas, adminPort,
		v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")})
}

// drive runs one cluster until stop is set: create it, wait until it is ready, then set each of
// the targets drawn from rng (scale-downs by one broker with scale-ups mixed in, as the race
// experiment draws them) and wait for each to converge. Rolling restarts are mixed in: the first
// step after bring-up, then in place of a scaling step with probability -rollout-share. So are
// pool moves, every broker to pool blue and back (moveNext): the step after the first rollout,
// then with probability -move-share. A step whose cluster makes no
// progress for stepTimeout (harness.Clusters.Await) leaves the cluster stuck, and its run ends there. Writes by the harness are retried
// until they succeed or the step's time is up: the apiserver may be down.
func (h *rig) drive(ctx context.Context, name string, rng *rand.Rand, stop *atomic.Bool) *clusterRun {
	run := &clusterRun{name: name}
	sched := harness.NewSchedule(rng, 1<<20)
	create := func(ctx context.Context) error {
		_, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Create(ctx, newBrokerCluster(h.ns, name, sched.Initial, h.sim.Cluster(h.ns, name).AdminPort()), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // an earlier try went through, but its answer was lost
		}
		return err
	}
	run.marks = append(run.marks, harness.Mark{At: time.Now(), Target: sched.Initial})
	if err := retry(ctx, h.s.bringUp, create); err != nil {
		run.stuck = "create: " + err.Error()
		return run
	}
	if ok, why, _ := h.world.Await(ctx, name, sched.Initial, h.s.bringUp, nil); !ok {
		run.stuck = fmt.Sprintf("bring-up to %d: %s; %s", sched.Initial, why, h.stuckDetail(ctx, name))
		return run
	}
	cur := sched.Initial
	targets := sched.Targets
	var restore func() // set while a scale-up asked for by the stuck-drain fault runs
	rollouts, moves := 0, 0
	for len(targets) > 0 {
		if stop.Load() || ctx.Err() != nil {
			return run
		}
		if traps := h.imageTraps; restore == nil && cur >= h.trapMin.Load() {
			select {
			case trap := <-traps:
				rollouts++
				if !h.rollOutBadImage(ctx, name, cur, rollouts, run, trap) {
					return run
				}
				continue
			default:
			}
		}
		if rolloutNext(rollouts, restore != nil, h.s.rolloutShare, rng) {
			rollouts++
			if !h.rollOut(ctx, name, cur, rollouts, run) {
				return run
			}
			continue
		}
		// Both pools run on the same fake nodes, one broker per node across the cluster: a move
		// needs a node for each new broker beside each old one.
		if moveNext(moves, rollouts, restore != nil, h.s.moveShare, rng) && 2*int(cur) <= len(h.cp.FakeNodes()) {
			moves++
			if !h.moveAndBack(ctx, name, cur, run) {
				return run
			}
			continue
		}
		target := targets[0]
		targets = targets[1:]
		if target < cur {
			h.trapDrain(name, cur)
		}
		step := Step{Start: time.Now(), From: cur, To: target}
		run.marks = append(run.marks, harness.Mark{At: step.Start, Target: target})
		patch := []byte(`{"spec":{"replicas":` + strconv.Itoa(int(target)) + `}}`)
		err := retry(ctx, h.s.stepTimeout, func(ctx context.Context) error {
			_, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		})
		if err != nil {
			run.steps = append(run.steps, step)
			run.stuck = fmt.Sprintf("step %d (%d to %d): %v", len(run.steps), cur, target, err)
			return run
		}
		ok, why, nudged := h.world.Await(ctx, name, target, h.s.stepTimeout, h.nudges[name])
		if nudged != nil {
			// A drain stuck on purpose: scale up by one broker from where the step began, then
			// carry on with the schedule.
			run.steps = append(run.steps, step) // interrupted: neither converged nor stuck
			targets = append([]int32{min(max(cur, target)+1, maxReplicas)}, targets...)
			restore = nudged
			continue
		}
		if !ok {
			run.steps = append(run.steps, step)
			if ctx.Err() == nil {
				run.stuck = fmt.Sprintf("step %d (%d to %d): %s; %s", len(run.steps), cur, target, why, h.stuckDetail(ctx, name))
			}
			return run
		}
		step.End = time.Now()
		run.steps = append(run.steps, step)
		if target < cur {
			h.decommissioned.Add(int64(cur - target))
		}
		cur = target
		if restore != nil {
			restore()
			restore = nil
		}
	}
	return run
}

// rollOut changes the pod template of a steady cluster, its image and its pod annotations in
// turn, and waits until every broker was restarted onto it (brokersim.PodSync.Converged: all
// replicas updated and status.restart cleared). It returns false, with run.stuck set, if the
// rollout did not converge in time.
func (h *rig) rollOut(ctx context.Context, name string, replicas int32, n int, run *clusterRun) bool {
	patch := fmt.Appendf(nil, `{"spec":{"image":%q}}`, rolloutImage(n))
	if n%2 == 0 {
		patch = fmt.Appendf(nil, `{"spec":{"podAnnotations":{"soak.broker-operator.dev/rollout":"%d"}}}`, n)
	}
	return h.rollOutWith(ctx, name, replicas, n, run, patch)
}

// patchCluster returns a merge patch of a BrokerCluster, for retry.
func (h *rig) patchCluster(name string, patch []byte) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}
}

// rollOutWith is rollOut with the given patch of the cluster's spec.
func (h *rig) rollOutWith(ctx context.Context, name string, replicas int32, n int, run *clusterRun, patch []byte) bool {
	step := Step{Start: time.Now(), From: replicas, To: replicas, Rollout: true}
	err := retry(ctx, h.s.stepTimeout, h.patchCluster(name, patch))
	if err == nil {
		var ok bool
		var why string
		if ok, why, _ = h.world.Await(ctx, name, replicas, h.s.stepTimeout, nil); !ok && ctx.Err() == nil {
			err = fmt.Errorf("%s; %s", why, h.stuckDetail(ctx, name))
		}
	}
	if err == nil && ctx.Err() == nil {
		step.End = time.Now()
	}
	run.steps = append(run.steps, step)
	if step.End.IsZero() && ctx.Err() == nil {
		run.stuck = fmt.Sprintf("step %d (rollout %d at %d brokers): %v", len(run.steps), n, replicas, err)
		return false
	}
	return ctx.Err() == nil
}

// trappedDrain is a scale-down handed to the stuck-drain fault: its cluster and the brokers it
// had before the step, which is now its replication factor.
type trappedDrain struct {
	name    string
	brokers int32
}

// trapDrain hands the scale-down the driver is about to make to a waiting stuck-drain fault, if
// there is one. The cluster's replication factor rises to its broker count as the simulator
// accepts the decommission: the drain then has nowhere to move replicas from its first moment, as
// a topic with a replication factor as large as the cluster stalls a real one. (Raised before the
// step, the scale-down pre-flight holds it, rightly, and nothing stalls; raised once the drain was
// seen running, the factor came too late: most 1 s drains had finished.)
func (h *rig) trapDrain(name string, brokers int32) {
	select {
	case h.drainTraps <- trappedDrain{name, brokers}:
		h.sim.Cluster(h.ns, name).SetReplicationFactorOnDecommission(int(brokers))
	default:
	}
}

// stuckDetail says more of a cluster that did not converge: its pods as the harness's informer
// holds them, then its status and pods read live from the apiserver, so that an informer of the
// harness that fell behind can be told from a cluster that is stuck.
func (h *rig) stuckDetail(ctx context.Context, name string) string {
	detail := "pods: " + h.world.pods.DescribePods(h.ns, name)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	bc, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return detail + "; live read: " + err.Error()
	}
	pods, err := h.kube.CoreV1().Pods(h.ns).List(ctx, metav1.ListOptions{LabelSelector: controller.LabelInstance + "=" + name})
	if err != nil {
		return detail + "; live read: " + err.Error()
	}
	var ready []string
	for i := range pods.Items {
		if brokersim.PodReady(&pods.Items[i]) {
			ready = append(ready, pods.Items[i].Name)
		}
	}
	return fmt.Sprintf("%s; live: resourceVersion %s, current %d, ready %d, %d pods, ready %v",
		detail, bc.ResourceVersion, bc.Status.CurrentReplicas, bc.Status.ReadyReplicas, len(pods.Items), ready)
}

// maxReplicas is the most brokers a cluster is scaled to, as the race experiment's schedules.
const maxReplicas = 7

// retry calls f until it succeeds, ctx ends or limit passes.
func retry(ctx context.Context, limit time.Duration, f func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		last = f(callCtx)
		return last == nil, nil
	})
	if err != nil && last != nil {
		return last
	}
	return err
}
