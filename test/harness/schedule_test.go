package harness

import (
	"slices"
	"testing"
)

func TestSchedulesHaveTheDecommissionsAskedForWithScaleUpsMixedIn(t *testing.T) {
	schedules := Schedules(42, 200, 6)
	ups := 0
	for i, s := range schedules {
		if got := s.Decommissions(); got != 6 {
			t.Fatalf("schedule %d: %d decommissions, want 6: %+v", i, got, s)
		}
		prev := s.Initial
		for _, target := range s.Targets {
			if target < scheduleMinReplicas || target > scheduleMaxReplicas {
				t.Fatalf("schedule %d: target %d out of bounds: %+v", i, target, s)
			}
			if target < prev && prev-target != 1 {
				t.Fatalf("schedule %d: a step removes %d brokers at once: %+v", i, prev-target, s)
			}
			if target > prev {
				ups++
			}
			if target == prev {
				t.Fatalf("schedule %d: a step that changes nothing: %+v", i, s)
			}
			prev = target
		}
		if s.Max() > scheduleMaxReplicas || s.Max() < s.Initial {
			t.Fatalf("schedule %d: Max %d", i, s.Max())
		}
	}
	if ups < 200 {
		t.Errorf("only %d scale-ups in 200 schedules", ups)
	}
}

func TestSchedulesReplayFromTheSeed(t *testing.T) {
	a, b, c := Schedules(7, 20, 6), Schedules(7, 20, 6), Schedules(8, 20, 6)
	same := func(x, y []Schedule) bool {
		return slices.EqualFunc(x, y, func(p, q Schedule) bool { return p.Initial == q.Initial && slices.Equal(p.Targets, q.Targets) })
	}
	if !same(a, b) {
		t.Error("one seed gave two different sets of schedules")
	}
	if same(a, c) {
		t.Error("two seeds gave the same schedules")
	}
	// A cluster's schedule does not depend on how many clusters there are.
	if d := Schedules(7, 5, 6); !same(a[:5], d) {
		t.Error("the first clusters' schedules changed with the cluster count")
	}
}
