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

var flagReactions = flag.Int("reactions", 100, "TestSoakScale: spec changes (a live cluster property) timed per size and strategy, each of another cluster, from the patch to the operator's first admin call for that cluster; 0 skips them")

// reactions times the operator's reaction to one cluster's spec change while every other
// cluster sits idle in its informers: from the patch sent to the first admin call for that
// cluster. A steady cluster asks its brokers nothing (step.NeedsAdmin), so the change is one the
// brokers must be asked for, and that leaves no work behind for the next sample: a new value of
// log_segment_size, a cluster property Redpanda applies live (needs_restart::no,
// src/v/config/configuration.cc; the simulator's knownProperties), set through the admin API.
// Each sample changes another cluster, spread over the whole list; samples run one at a time.
// patch holds each sample's patch round trip, the apiserver's share (admission, the CRD's CEL
// rules, the write): the operator cannot see the change before it is written.
func (h *rig) reactions(samples int) (total, patch []time.Duration, err error) {
	n := len(h.names)
	samples = min(samples, n)
	for i := range samples {
		name := h.names[i*n/samples]
		cluster := h.sim.Cluster(h.ns, name)
		// A size no earlier sample of this run set: 256 MiB and up, a MiB apart.
		size := (256 + h.reactionSamples.Add(1)) << 20
		body := fmt.Appendf(nil, `{"spec":{"clusterConfig":{"log_segment_size":"%d"}}}`, size)
		sent := time.Now()
		if _, err := h.brokers.BrokersV1alpha1().BrokerClusters(h.ns).Patch(h.ctx, name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
			return total, patch, err
		}
		answered := time.Now()
		var first time.Time
		err = wait.PollUntilContextTimeout(h.ctx, time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			for _, c := range cluster.Calls() {
				if !c.At.Before(sent) {
					first = c.At
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return total, patch, fmt.Errorf("no admin call for %s within a minute of its spec change: %w", name, err)
		}
		total, patch = append(total, first.Sub(sent)), append(patch, answered.Sub(sent))
	}
	return total, patch, nil
}
