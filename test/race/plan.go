package race

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
)

// The workloads: what each cluster of a row goes through.
const (
	// WorkloadScale scales the default pool down one broker at a time, with scale-ups mixed in
	// (harness.Schedule).
	WorkloadScale = "scale"
	// WorkloadPools moves every broker from the default pool to pool MovePool and back, one
	// move per step, as the seed's clusters moved to another node pool.
	WorkloadPools = "pools"
)

// MovePool is the named pool the pool-move workload moves brokers to; PoolBrokers is how many
// brokers each of its clusters runs: three, as the seed's clusters (currentReplicas 3 to 2).
const (
	MovePool    = "blue"
	PoolBrokers = 3
)

// ParseWorkloads parses -workload: "scale", "pools", or both, comma-separated, each once.
func ParseWorkloads(text string) ([]string, error) {
	var out []string
	for _, w := range strings.Split(text, ",") {
		w = strings.TrimSpace(w)
		switch {
		case w != WorkloadScale && w != WorkloadPools:
			return nil, fmt.Errorf("workload %q is not %s or %s", w, WorkloadScale, WorkloadPools)
		case len(out) > 0 && out[0] == w:
			return nil, fmt.Errorf("workload %q named twice", w)
		}
		out = append(out, w)
	}
	return out, nil
}

// RowsFor parses the rows a workload runs from -rows: "" is the workload's quick rows
// (QuickRows, QuickPoolRows). A rollout does not run during a move between pools
// (docs/pools.md), so the pool-move workload runs no +R row.
func RowsFor(workload, text string) ([]Row, error) {
	if text == "" {
		text = QuickRows
		if workload == WorkloadPools {
			text = QuickPoolRows
		}
	}
	rows, err := ParseRows(text)
	if err != nil || workload == WorkloadScale {
		return rows, err
	}
	var out []Row
	for _, r := range rows {
		if !r.Rollout {
			out = append(out, r)
		}
	}
	return out, nil
}

// volumeSize is what each broker's PersistentVolume offers and each pool asks for.
var volumeSize = resource.MustParse("1Gi")

// keptStorage is the storage of every pool of the experiment. It keeps its claims when a broker
// leaves: the experiment binds a volume to each pod's claim in advance (createVolumes), and a
// claim deleted would come back unbound.
func keptStorage() v1alpha1.StorageSpec {
	return v1alpha1.StorageSpec{Size: volumeSize, WhenScaledDown: v1alpha1.VolumeRetain}
}

// A step is one spec change the harness makes to a cluster: the merge patch, and the mark that
// says what it asks for (its time and the brokers known then are filled in when it is taken).
type step struct {
	mark  harness.Mark
	patch []byte
}

// A plan is one cluster's life in a row.
type plan struct {
	// initial is the default pool's brokers at creation; the cluster starts without pools.
	initial int32
	steps   []step
	// volumes is the most brokers each pool ("" the default pool) ever runs: the pods whose
	// claims the row binds in advance.
	volumes map[string]int32
	// decommissions is how many brokers the plan removes.
	decommissions int
}

// scalePlan is a harness.Schedule as a plan: each step sets spec.replicas; with rollout, every
// other step also changes the image in the same patch.
func scalePlan(s harness.Schedule, rollout bool) plan {
	p := plan{initial: s.Initial, volumes: map[string]int32{"": s.Max()}, decommissions: s.Decommissions()}
	for i, target := range s.Targets {
		patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, target)
		if rollout && i%2 == 0 {
			patch = fmt.Appendf(nil, `{"spec":{"replicas":%d,"image":"registry.invalid/broker:race-%d"}}`, target, i)
		}
		p.steps = append(p.steps, step{mark: harness.Mark{Target: target}, patch: patch})
	}
	return p
}

// poolPlan moves a cluster of PoolBrokers brokers moves times: from the default pool to
// MovePool, back, and so on, each with one merge patch as docs/pools.md says to (MovePool stays
// in spec.pools at 0 while the brokers are in the default pool). Every move decommissions each
// of the pool's brokers once.
func poolPlan(moves int) (plan, error) {
	p := plan{initial: PoolBrokers, volumes: map[string]int32{"": PoolBrokers, MovePool: PoolBrokers}, decommissions: moves * PoolBrokers}
	for i := range moves {
		target, moved := int32(0), int32(PoolBrokers)
		if i%2 == 1 {
			target, moved = moved, target
		}
		pool := v1alpha1.BrokerPool{
			Name: MovePool, Replicas: moved, Storage: keptStorage(),
			NodeSelector: framework.FakeNodeSelector(), Tolerations: framework.FakeNodeTolerations(),
		}
		patch, err := json.Marshal(map[string]any{"spec": map[string]any{"replicas": target, "pools": []v1alpha1.BrokerPool{pool}}})
		if err != nil {
			return p, err
		}
		p.steps = append(p.steps, step{mark: harness.Mark{Target: target, Pools: map[string]int32{MovePool: moved}}, patch: patch})
	}
	return p, nil
}

// plans draws every cluster's plan of a row from the seed.
func plans(workload string, seed uint64, clusters, steps, moves int, rollout bool) ([]plan, error) {
	out := make([]plan, clusters)
	if workload == WorkloadPools {
		p, err := poolPlan(moves)
		for i := range out {
			out[i] = p
		}
		return out, err
	}
	for i, s := range harness.Schedules(seed, clusters, steps) {
		out[i] = scalePlan(s, rollout)
	}
	return out, nil
}
