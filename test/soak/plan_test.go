package soak

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestNewPlan(t *testing.T) {
	kinds := []string{"a", "b", "c", "d"}
	plan := NewPlan(7, kinds, 3)
	if len(plan) != 12 {
		t.Fatalf("plan %v has %d faults, want 12", plan, len(plan))
	}
	for r := range 3 {
		round := slices.Clone(plan[r*4 : r*4+4])
		slices.Sort(round)
		if !slices.Equal(round, kinds) {
			t.Errorf("round %d is %v, want each kind once", r, plan[r*4:r*4+4])
		}
	}
	if !slices.Equal(plan, NewPlan(7, kinds, 3)) {
		t.Error("the same seed drew another plan")
	}
	if slices.Equal(plan, NewPlan(8, kinds, 3)) {
		t.Error("another seed drew the same plan")
	}
}

// The stuck-drain fault's scale-up must come before any rollout: a rollout at the size the
// driver knew waits for a drain that cannot finish (a soak run went stuck that way: "step 5
// (rollout 3 at 3 brokers): spec 2, current 3, decommissioning 102").
func TestRolloutNextWaitsForAPendingScaleUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if !rolloutNext(0, false, 0.2, rng) {
		t.Fatal("the first step must be a rollout")
	}
	for range 1000 {
		if rolloutNext(0, true, 0.2, rng) || rolloutNext(3, true, 0.2, rng) {
			t.Fatal("a rollout came before the pending scale-up")
		}
	}
	rollouts := 0
	for range 10000 {
		if rolloutNext(1, false, 0.2, rng) {
			rollouts++
		}
	}
	if rollouts < 1700 || rollouts > 2300 {
		t.Fatalf("%d rollouts in 10,000 steps, want about one in five", rollouts)
	}
}

func TestMoveNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if moveNext(0, 0, false, 0.1, rng) {
		t.Fatal("a move before the first rollout")
	}
	if !moveNext(0, 1, false, 0.1, rng) {
		t.Fatal("the step after the first rollout must be a move")
	}
	for range 1000 {
		if moveNext(0, 1, true, 0.1, rng) || moveNext(0, 1, false, 0, rng) {
			t.Fatal("a move before the pending scale-up, or with -move-share=0")
		}
	}
	moves := 0
	for range 10000 {
		if moveNext(1, 1, false, 0.1, rng) {
			moves++
		}
	}
	if moves < 800 || moves > 1200 {
		t.Fatalf("%d moves in 10,000 steps, want about one in ten", moves)
	}
}
