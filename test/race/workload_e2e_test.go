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

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/framework"
)

// newBrokerCluster is a BrokerCluster whose admin port is the first of its simulated cluster's
// own ports, so that the simulator's BrokerAddressTemplate reaches each broker's listener.
func newBrokerCluster(ns, name string, replicas int32, adminPort int) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas: replicas,
			Image:    "registry.invalid/broker:race",
			// The experiment binds a volume to each ordinal's claim in advance (createVolumes);
			// a claim deleted on a scale-down would come back unbound.
			Storage:      v1alpha1.StorageSpec{Size: volumeSize, WhenScaledDown: v1alpha1.VolumeRetain},
			AdminAPI:     v1alpha1.AdminAPISpec{Port: int32(adminPort)},
			NodeSelector: framework.FakeNodeSelector(),
			Tolerations:  framework.FakeNodeTolerations(),
		},
	}
}

// drive runs one cluster's schedule: create it, wait until it is ready (within bringUpTimeout:
// every cluster of a row starts at once), then set each target and wait for it to converge. With
// rollout, every other step also changes the image in the same patch, so the rollout and the
// scaling mix. A step that does not converge within stepTimeout leaves the cluster stuck, and its
// schedule ends there.
func drive(ctx context.Context, w *world, brokers versioned.Interface, name string, s Schedule, rollout bool, bringUpTimeout, stepTimeout time.Duration) clusterRun {
	run := clusterRun{name: name}
	run.marks = append(run.marks, mark{time.Now(), s.Initial})
	if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Create(ctx, newBrokerCluster(w.ns, name, s.Initial, w.sim.Cluster(w.ns, name).AdminPort()), metav1.CreateOptions{}); err != nil {
		run.stuck = "create: " + err.Error()
		return run
	}
	if ok, why := w.await(ctx, name, s.Initial, bringUpTimeout); !ok {
		run.stuck = fmt.Sprintf("bring-up to %d: %s; pods: %s", s.Initial, why, w.pods.DescribePods(w.ns, name))
		return run
	}
	run.bringUp = time.Since(run.marks[0].at)
	for i, target := range s.Targets {
		run.marks = append(run.marks, mark{time.Now(), target})
		start := time.Now()
		patch := []byte(`{"spec":{"replicas":` + strconv.Itoa(int(target)) + `}}`)
		if rollout && i%2 == 0 {
			patch = fmt.Appendf(nil, `{"spec":{"replicas":%d,"image":"registry.invalid/broker:race-%d"}}`, target, i)
		}
		if _, err := brokers.BrokersV1alpha1().BrokerClusters(w.ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			run.stuck = fmt.Sprintf("step %d (to %d): %v", i+1, target, err)
			return run
		}
		if ok, why := w.await(ctx, name, target, stepTimeout); !ok {
			run.stuck = fmt.Sprintf("step %d (to %d): %s; pods: %s", i+1, target, why, w.pods.DescribePods(w.ns, name))
			return run
		}
		run.steps = append(run.steps, time.Since(start))
	}
	return run
}

// driveAll runs every cluster's schedule at once and returns their runs, in cluster order.
func driveAll(ctx context.Context, w *world, brokers versioned.Interface, names []string, schedules []Schedule, rollout bool, bringUpTimeout, stepTimeout time.Duration) []clusterRun {
	runs := make([]clusterRun, len(names))
	var wg sync.WaitGroup
	for i := range names {
		wg.Go(func() { runs[i] = drive(ctx, w, brokers, names[i], schedules[i], rollout, bringUpTimeout, stepTimeout) })
	}
	wg.Wait()
	return runs
}
