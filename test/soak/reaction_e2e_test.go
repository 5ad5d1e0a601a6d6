//go:build e2e

package soak

import (
	"context"
	"flag"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

var flagReactions = flag.Int("reactions", 100, "TestSoakScale: scale-downs timed per size and strategy, each of another cluster, from the patch to the operator's first admin call for that cluster; 0 skips them")

// reactions times the operator's reaction to one cluster's spec change while every other
// cluster sits idle in its informers: from the patch sent to the first admin call for that
// cluster. Each sample scales another steady cluster, spread over the whole list, from 3
// brokers to 2: a steady cluster asks its brokers nothing (step.NeedsAdmin), and a scale-down
// asks them first. Samples run one at a time; each cluster's decommission then goes on in the
// background, and reactions waits until every sampled cluster is steady at 2 before it returns.
func (h *rig) reactions(samples int) ([]time.Duration, error) {
	n := len(h.names)
	samples = min(samples, n)
	out := make([]time.Duration, 0, samples)
	var sampled []string
	patch := []byte(`{"spec":{"replicas":2}}`)
	for i := range samples {
		name := h.names[i*n/samples]
		cluster := h.sim.Cluster(h.ns, name)
		sent := time.Now()
		if _, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Patch(h.ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return out, err
		}
		sampled = append(sampled, name)
		var first time.Time
		err := wait.PollUntilContextTimeout(h.ctx, time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			for _, c := range cluster.Calls() {
				if !c.At.Before(sent) {
					first = c.At
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return out, fmt.Errorf("no admin call for %s within a minute of its scale-down: %w", name, err)
		}
		out = append(out, first.Sub(sent))
	}
	for _, name := range sampled {
		if ok, why, _ := h.world.Await(h.ctx, name, 2, h.s.stepTimeout, nil); !ok {
			return out, fmt.Errorf("%s did not scale down to 2 after its reaction sample: %s", name, why)
		}
	}
	return out, nil
}
