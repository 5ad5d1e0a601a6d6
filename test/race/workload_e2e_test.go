//go:build e2e

package race

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/harness"
)

// drive runs one cluster's schedule: create it, wait until it is ready (within bringUpTimeout:
// every cluster of a row starts at once), then set each target and wait for it to converge. With
// rollout, every other step also changes the image in the same patch, so the rollout and the
// scaling mix. A step that does not converge within stepTimeout leaves the cluster stuck, and its
// schedule ends there.
func drive(ctx context.Context, w *world, brokers versioned.Interface, name string, s harness.Schedule, rollout bool, bringUpTimeout, stepTimeout time.Duration) clusterRun {
	run := clusterRun{name: name}
	run.marks = append(run.marks, harness.Mark{At: time.Now(), Target: s.Initial})
	if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Create(ctx, newBrokerCluster(w.ns, name, s.Initial, w.sim.Cluster(w.ns, name).AdminPort()), metav1.CreateOptions{}); err != nil {
		run.stuck = "create: " + err.Error()
		return run
	}
	if ok, why, _ := w.clusters.Await(ctx, name, s.Initial, bringUpTimeout, nil); !ok {
		run.stuck = fmt.Sprintf("bring-up to %d: %s; pods: %s", s.Initial, why, w.pods.DescribePods(w.ns, name))
		return run
	}
	run.bringUp = time.Since(run.marks[0].At)
	for i, target := range s.Targets {
		run.marks = append(run.marks, harness.Mark{At: time.Now(), Target: target})
		start := time.Now()
		patch := []byte(`{"spec":{"replicas":` + strconv.Itoa(int(target)) + `}}`)
		if rollout && i%2 == 0 {
			patch = fmt.Appendf(nil, `{"spec":{"replicas":%d,"image":"registry.invalid/broker:race-%d"}}`, target, i)
		}
		if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			run.stuck = fmt.Sprintf("step %d (to %d): %v", i+1, target, err)
			return run
		}
		if ok, why, _ := w.clusters.Await(ctx, name, target, stepTimeout, nil); !ok {
			run.stuck = fmt.Sprintf("step %d (to %d): %s; pods: %s", i+1, target, why, w.pods.DescribePods(w.ns, name))
			return run
		}
		run.steps = append(run.steps, time.Since(start))
	}
	return run
}

// driveAll runs every cluster's schedule at once and returns their runs, in cluster order.
func driveAll(ctx context.Context, w *world, brokers versioned.Interface, names []string, schedules []harness.Schedule, rollout bool, bringUpTimeout, stepTimeout time.Duration) []clusterRun {
	runs := make([]clusterRun, len(names))
	var wg sync.WaitGroup
	for i := range names {
		wg.Go(func() { runs[i] = drive(ctx, w, brokers, names[i], schedules[i], rollout, bringUpTimeout, stepTimeout) })
	}
	wg.Wait()
	return runs
}
