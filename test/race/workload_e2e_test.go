//go:build e2e

package race

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/framework"
)

// mark is when the harness set a cluster's spec.replicas, and to what.
type mark struct {
	at     time.Time
	target int32
}

// clusterRun is what happened to one cluster of a row.
type clusterRun struct {
	name  string
	marks []mark
	// steps are the convergence times of the scaling steps (the bring-up is not one).
	steps []time.Duration
	// stuck says why the cluster did not converge on a step in time; "" if it always did.
	stuck string
}

func newBrokerCluster(ns, name string, replicas int32) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas:     replicas,
			Image:        "registry.invalid/broker:race",
			Storage:      v1alpha1.StorageSpec{Size: volumeSize},
			AdminAPI:     v1alpha1.AdminAPISpec{Port: 9644},
			NodeSelector: framework.FakeNodeSelector(),
			Tolerations:  framework.FakeNodeTolerations(),
		},
	}
}

// drive runs one cluster's schedule: create it, wait until it is ready, then set each target and
// wait for it to converge. A step that does not converge within stepTimeout leaves the cluster
// stuck, and its schedule ends there.
func drive(ctx context.Context, w *world, brokers versioned.Interface, name string, s Schedule, stepTimeout time.Duration) clusterRun {
	run := clusterRun{name: name}
	run.marks = append(run.marks, mark{time.Now(), s.Initial})
	if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Create(ctx, newBrokerCluster(w.ns, name, s.Initial), metav1.CreateOptions{}); err != nil {
		run.stuck = "create: " + err.Error()
		return run
	}
	if ok, why := w.await(ctx, name, s.Initial, stepTimeout); !ok {
		run.stuck = fmt.Sprintf("bring-up to %d: %s", s.Initial, why)
		return run
	}
	for i, target := range s.Targets {
		run.marks = append(run.marks, mark{time.Now(), target})
		start := time.Now()
		patch := []byte(`{"spec":{"replicas":` + strconv.Itoa(int(target)) + `}}`)
		if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			run.stuck = fmt.Sprintf("step %d (to %d): %v", i+1, target, err)
			return run
		}
		if ok, why := w.await(ctx, name, target, stepTimeout); !ok {
			run.stuck = fmt.Sprintf("step %d (to %d): %s", i+1, target, why)
			return run
		}
		run.steps = append(run.steps, time.Since(start))
	}
	return run
}

// driveAll runs every cluster's schedule at once and returns their runs, in cluster order.
func driveAll(ctx context.Context, w *world, brokers versioned.Interface, names []string, schedules []Schedule, stepTimeout time.Duration) []clusterRun {
	runs := make([]clusterRun, len(names))
	var wg sync.WaitGroup
	for i := range names {
		wg.Go(func() { runs[i] = drive(ctx, w, brokers, names[i], schedules[i], stepTimeout) })
	}
	wg.Wait()
	return runs
}

// untargeted counts the decommission calls that reached a cluster for a broker whose pod ordinal
// was below what the cluster was being scaled to: during a step, brokers at or above the smaller
// of the step's target and the one before it may go, none below.
func untargeted(c *admintest.Cluster, run clusterRun) (int, []string) {
	ordinals := map[int]int{}
	for _, b := range c.Brokers() {
		ordinals[b.NodeID] = b.Ordinal
	}
	var out []string
	for _, call := range c.Calls() {
		if call.Method != "PUT" || call.Status == 0 || call.Path != fmt.Sprintf("/v1/brokers/%d/decommission", call.NodeID) {
			continue
		}
		i := -1
		for j, m := range run.marks {
			if !m.at.After(call.At) {
				i = j
			}
		}
		if i < 0 {
			out = append(out, fmt.Sprintf("%s: decommission of node %d before the cluster was created", run.name, call.NodeID))
			continue
		}
		floor := run.marks[i].target
		if i > 0 {
			floor = min(floor, run.marks[i-1].target)
		}
		if ordinal, ok := ordinals[call.NodeID]; ok && ordinal < int(floor) {
			out = append(out, fmt.Sprintf("%s: decommission of node %d (ordinal %d) while scaling to %d", run.name, call.NodeID, ordinal, run.marks[i].target))
		}
	}
	return len(out), out
}

// quantile returns the q-quantile (0..1) of ds, nearest rank.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
