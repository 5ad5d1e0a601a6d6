//go:build e2e

package race

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/harness"
)

// bringUp creates one cluster and waits until it is ready, within bringUpTimeout: every cluster
// of a row starts at once.
func bringUp(ctx context.Context, w *world, brokers versioned.Interface, name string, p plan, timeout time.Duration) clusterRun {
	run := clusterRun{name: name}
	run.marks = append(run.marks, harness.Mark{At: time.Now(), Target: p.initial})
	if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Create(ctx, newBrokerCluster(w.ns, name, p.initial, w.sim.Cluster(w.ns, name).AdminPort()), metav1.CreateOptions{}); err != nil {
		run.stuck = "create: " + err.Error()
		return run
	}
	if ok, why, _ := w.clusters.Await(ctx, name, p.initial, timeout, nil); !ok {
		run.stuck = fmt.Sprintf("bring-up to %d: %s; pods: %s", p.initial, why, w.pods.DescribePods(w.ns, name))
		return run
	}
	run.bringUp = time.Since(run.marks[0].At)
	return run
}

// takeSteps takes a ready cluster through its plan's steps: each patch, then a wait until the
// cluster has converged on what the step asked for. A step that makes no progress for
// stepTimeout leaves the cluster stuck, and its plan ends there.
func takeSteps(ctx context.Context, w *world, brokers versioned.Interface, run *clusterRun, p plan, stepTimeout time.Duration) {
	for i, st := range p.steps {
		mark := st.mark
		mark.At, mark.Known = time.Now(), harness.KnownBrokers(w.sim.Cluster(w.ns, run.name))
		run.marks = append(run.marks, mark)
		if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Patch(ctx, run.name, types.MergePatchType, st.patch, metav1.PatchOptions{}); err != nil {
			run.stuck = fmt.Sprintf("step %d (%s): %v", i+1, st.patch, err)
			return
		}
		if ok, why, _ := w.clusters.Await(ctx, run.name, mark.Target, stepTimeout, nil); !ok {
			run.stuck = fmt.Sprintf("step %d (%s): %s; pods: %s", i+1, st.patch, why, w.pods.DescribePods(w.ns, run.name))
			return
		}
		run.steps = append(run.steps, time.Since(mark.At))
	}
}

// driveAll brings every cluster up at once, calls ready once all of them are up (or stuck), then
// takes every ready cluster through its steps at once, and returns their runs, in cluster order.
// What a row measures from ready on is the steps alone, bring-up left out.
func driveAll(ctx context.Context, w *world, brokers versioned.Interface, names []string, plans []plan, bringUpTimeout, stepTimeout time.Duration, ready func()) []clusterRun {
	runs := make([]clusterRun, len(names))
	var up, done sync.WaitGroup
	up.Add(len(names))
	start := make(chan struct{})
	for i := range names {
		done.Go(func() {
			runs[i] = bringUp(ctx, w, brokers, names[i], plans[i], bringUpTimeout)
			up.Done()
			<-start
			if runs[i].stuck == "" {
				takeSteps(ctx, w, brokers, &runs[i], plans[i], stepTimeout)
			}
		})
	}
	up.Wait()
	ready()
	close(start)
	done.Wait()
	return runs
}
