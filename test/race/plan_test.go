package race

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/harness"
)

func TestParseWorkloads(t *testing.T) {
	got, err := ParseWorkloads("scale, pools")
	if err != nil || !slices.Equal(got, []string{WorkloadScale, WorkloadPools}) {
		t.Errorf("ParseWorkloads: %v, %v", got, err)
	}
	for _, bad := range []string{"", "pool", "scale,scale", "pools,"} {
		if _, err := ParseWorkloads(bad); err == nil {
			t.Errorf("ParseWorkloads(%q): want an error", bad)
		}
	}
}

func TestThePoolWorkloadRunsNoRolloutRow(t *testing.T) {
	names := func(rows []Row, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Name())
		}
		return out
	}
	for _, tt := range []struct {
		workload, text string
		want           []string
	}{
		{WorkloadScale, "", []string{"cache", "uncached", "writeback", "writeback+C+D", "writeback+C+D+R"}},
		{WorkloadPools, "", []string{"cache", "writeback", "writeback+C+D"}},
		{WorkloadScale, "cache+R,writeback", []string{"cache+R", "writeback"}},
		{WorkloadPools, "cache+R,uncached,writeback+C+D+R", []string{"uncached"}},
	} {
		if got := names(RowsFor(tt.workload, tt.text)); !slices.Equal(got, tt.want) {
			t.Errorf("RowsFor(%s, %q) = %v, want %v", tt.workload, tt.text, got, tt.want)
		}
	}
	if _, err := RowsFor(WorkloadPools, "fast"); err == nil {
		t.Error("RowsFor(pools, fast): want an error")
	}
}

// TestPoolPlanMovesEveryBrokerThereAndBack checks what each move's patch asks of the
// apiserver: all brokers in one pool, none in the other, alternating, and that each step's mark
// says the same.
func TestPoolPlanMovesEveryBrokerThereAndBack(t *testing.T) {
	p, err := poolPlan(3)
	if err != nil {
		t.Fatal(err)
	}
	if p.initial != PoolBrokers || p.decommissions != 3*PoolBrokers || len(p.steps) != 3 {
		t.Fatalf("plan %+v: want %d brokers, 3 moves, %d decommissions", p, PoolBrokers, 3*PoolBrokers)
	}
	if p.volumes[""] != PoolBrokers || p.volumes[MovePool] != PoolBrokers {
		t.Errorf("volumes %v, want %d in each pool", p.volumes, PoolBrokers)
	}
	for i, st := range p.steps {
		var patch struct {
			Spec struct {
				Replicas *int32                `json:"replicas"`
				Pools    []v1alpha1.BrokerPool `json:"pools"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(st.patch, &patch); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		wantDefault, wantMoved := int32(0), int32(PoolBrokers)
		if i%2 == 1 {
			wantDefault, wantMoved = wantMoved, wantDefault
		}
		spec := patch.Spec
		if spec.Replicas == nil || *spec.Replicas != wantDefault || len(spec.Pools) != 1 || spec.Pools[0].Name != MovePool || spec.Pools[0].Replicas != wantMoved {
			t.Errorf("step %d patch %s: want the default pool at %d and %s at %d", i, st.patch, wantDefault, MovePool, wantMoved)
			continue
		}
		if pool := spec.Pools[0]; pool.Storage.WhenScaledDown != v1alpha1.VolumeRetain || len(pool.Tolerations) == 0 || len(pool.NodeSelector) == 0 {
			t.Errorf("step %d: pool %+v must keep its claims and land on the fake nodes", i, pool)
		}
		if st.mark.Target != wantDefault || st.mark.Pools[MovePool] != wantMoved {
			t.Errorf("step %d mark %+v, want %d and %s %d", i, st.mark, wantDefault, MovePool, wantMoved)
		}
	}
}

func TestScalePlanKeepsTheSchedule(t *testing.T) {
	s := harness.Schedule{Initial: 3, Targets: []int32{2, 4, 3}}
	p := scalePlan(s, true)
	if p.initial != 3 || p.decommissions != 2 || p.volumes[""] != 4 || len(p.steps) != 3 {
		t.Fatalf("plan %+v", p)
	}
	want := []string{`{"spec":{"replicas":2,"image":"registry.invalid/broker:race-0"}}`, `{"spec":{"replicas":4}}`,
		`{"spec":{"replicas":3,"image":"registry.invalid/broker:race-2"}}`}
	for i, st := range p.steps {
		if string(st.patch) != want[i] || st.mark.Target != s.Targets[i] || st.mark.Pools != nil {
			t.Errorf("step %d: patch %s mark %+v, want %s to %d", i, st.patch, st.mark, want[i], s.Targets[i])
		}
	}
}
