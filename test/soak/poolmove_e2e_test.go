//go:build e2e

package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
)

// movePool is the named pool the soak's clusters move their brokers to and back from. It stays
// in spec.pools at 0 brokers while they are in the default pool, as docs/pools.md moves them.
const movePool = "blue"

// moveAndBack moves every broker of a steady cluster to movePool, waits until that converged,
// then moves them all back: two steps, each decommissioning every broker of the pool it leaves
// once the other pool's brokers have joined. It returns false, with run.stuck set, if a move
// did not converge in time.
func (h *rig) moveAndBack(ctx context.Context, name string, brokers int32, run *clusterRun) bool {
	return h.movePool(ctx, name, 0, brokers, run) && h.movePool(ctx, name, brokers, 0, run)
}

// movePool sets, in one patch, the default pool to def brokers and movePool to pool, and waits
// until the cluster converged on that (brokersim.PodSync.Converged judges each pool).
func (h *rig) movePool(ctx context.Context, name string, def, pool int32, run *clusterRun) bool {
	moved := max(def, pool)
	spec := map[string]any{"replicas": def, "pools": []v1alpha1.BrokerPool{{
		Name: movePool, Replicas: pool, Storage: v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")},
		NodeSelector: framework.FakeNodeSelector(), Tolerations: framework.FakeNodeTolerations(),
	}}}
	patch, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		panic(err) // a map of plain values always marshals
	}
	step := Step{Start: time.Now(), From: moved, To: moved, Moved: moved}
	run.marks = append(run.marks, harness.Mark{At: step.Start, Target: def, Pools: map[string]int32{movePool: pool},
		Known: harness.KnownBrokers(h.sim.Cluster(h.ns, name))})
	err = retry(ctx, h.s.stepTimeout, h.patchCluster(name, patch))
	if err == nil {
		if ok, why, _ := h.world.Await(ctx, name, def, h.s.stepTimeout, nil); !ok && ctx.Err() == nil {
			err = fmt.Errorf("%s; %s", why, h.stuckDetail(ctx, name))
		}
	}
	if err == nil && ctx.Err() == nil {
		step.End = time.Now()
		h.decommissioned.Add(int64(moved))
	}
	run.steps = append(run.steps, step)
	if step.End.IsZero() && ctx.Err() == nil {
		to := movePool
		if def > 0 {
			to = v1alpha1.DefaultPoolName
		}
		run.stuck = fmt.Sprintf("step %d (move of %d brokers to pool %s): %v", len(run.steps), moved, to, err)
		return false
	}
	return ctx.Err() == nil
}
