package step

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestPlanPoolsOrderOfAMove(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pools     []PoolState
		want      string
		wantHold  string
		wantClear bool
	}{
		{"no pools at all looks at the default pool", nil, DefaultPool, "", true},
		{"one pool is always the one looked at", []PoolState{{Name: DefaultPool, Desired: 1, Current: 3, Joining: "c-2", JoiningWhy: "not Ready"}}, DefaultPool, "", true},
		{"the new pool grows first", []PoolState{
			{Name: DefaultPool, Desired: 0, Current: 3},
			{Name: "blue", Desired: 3, Current: 0},
		}, "blue", "", true},
		{"the old pool waits while a new broker has not joined, looking at the new pool", []PoolState{
			{Name: DefaultPool, Desired: 0, Current: 3},
			{Name: "blue", Desired: 3, Current: 3, Joining: "c-blue-2", JoiningWhy: "its pod is not Ready"},
		}, "blue", "pod c-blue-2 of pool blue has not joined", false},
		{"the old pool shrinks once every new broker has joined", []PoolState{
			{Name: DefaultPool, Desired: 0, Current: 3},
			{Name: "blue", Desired: 3, Current: 3},
		}, DefaultPool, "", true},
		{"a drain under way goes on while a new broker joins", []PoolState{
			{Name: DefaultPool, Desired: 0, Current: 2, Decommissioning: true},
			{Name: "blue", Desired: 3, Current: 3, Joining: "c-blue-0", JoiningWhy: "restarting"},
		}, DefaultPool, "", true},
		{"a growth is not held by another pool's drain", []PoolState{
			{Name: DefaultPool, Desired: 0, Current: 2, Decommissioning: true},
			{Name: "blue", Desired: 4, Current: 3},
		}, "blue", "", true},
		{"a change of mind recommissions in the draining pool", []PoolState{
			{Name: DefaultPool, Desired: 3, Current: 2, Decommissioning: true},
			{Name: "blue", Desired: 0, Current: 3},
		}, DefaultPool, "", true},
		{"a removed pool drains once the others are whole", []PoolState{
			{Name: DefaultPool, Desired: 3, Current: 3},
			{Name: "green", Desired: 0, Current: 2},
		}, "green", "", true},
		{"a pool's own joining broker does not hold its shrink", []PoolState{
			{Name: DefaultPool, Desired: 3, Current: 3},
			{Name: "blue", Desired: 1, Current: 3, Joining: "c-blue-2", JoiningWhy: "Pending"},
		}, "blue", "", true},
		{"a settled cluster is looked at through the default pool", []PoolState{
			{Name: DefaultPool, Desired: 0, Current: 0},
			{Name: "blue", Desired: 3, Current: 3},
		}, DefaultPool, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanPools(tc.pools)
			if got.Pool != tc.want {
				t.Errorf("PlanPools looks at pool %q, want %q", got.Pool, tc.want)
			}
			if tc.wantClear && got.Hold != "" {
				t.Errorf("PlanPools holds (%s), want no hold", got.Hold)
			}
			if !tc.wantClear && !strings.Contains(got.Hold, tc.wantHold) {
				t.Errorf("PlanPools holds with %q, want it to say %q", got.Hold, tc.wantHold)
			}
		})
	}
}

// TestPlanPoolsProperties checks the rules of a move on any pools: one pool at a time, the
// draining pool kept until nothing grows, and no pool shrinking while another's broker joins.
func TestPlanPoolsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "pools")
		draining := rapid.IntRange(-1, n-1).Draw(t, "draining")
		pools := make([]PoolState, n)
		for i := range pools {
			pools[i] = PoolState{
				Name:            fmt.Sprintf("p%d", i),
				Desired:         rapid.Int32Range(0, 4).Draw(t, "desired"),
				Current:         rapid.Int32Range(0, 4).Draw(t, "current"),
				Decommissioning: i == draining,
			}
			if rapid.Bool().Draw(t, "joining") {
				pools[i].Joining, pools[i].JoiningWhy = fmt.Sprintf("pod-%d", i), "not Ready"
			}
		}
		pools[0].Name = DefaultPool
		plan := PlanPools(pools)
		var picked *PoolState
		for i := range pools {
			if pools[i].Name == plan.Pool {
				picked = &pools[i]
			}
		}
		if picked == nil {
			t.Fatalf("PlanPools picked %q, which is none of the pools", plan.Pool)
		}
		growing := false
		for _, p := range pools {
			growing = growing || p.Current < p.Desired
		}
		switch {
		case growing && picked.Current >= picked.Desired:
			t.Fatalf("a pool grows, but PlanPools picked %s (%d of %d)", picked.Name, picked.Current, picked.Desired)
		case !growing && draining >= 0 && picked.Name != pools[draining].Name:
			t.Fatalf("pool %s drains and none grows, but PlanPools picked %s", pools[draining].Name, picked.Name)
		}
		if picked.Current > picked.Desired && !picked.Decommissioning && plan.Hold == "" {
			for _, p := range pools {
				if p.Name != picked.Name && p.Joining != "" {
					t.Fatalf("pool %s may shrink while %s of pool %s has not joined", picked.Name, p.Joining, p.Name)
				}
			}
		}
		if plan.Hold != "" && (picked.Joining == "" || growing || draining >= 0) {
			t.Fatalf("PlanPools holds looking at %s, which has no broker joining, or while a pool grows or drains: %s", picked.Name, plan.Hold)
		}
		if n == 1 && (plan.Pool != pools[0].Name || plan.Hold != "") {
			t.Fatalf("one pool: PlanPools must pick it and never hold, got %+v", plan)
		}
	})
}
