package soak

import (
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
