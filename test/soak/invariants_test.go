package soak

import (
	"slices"
	"testing"
	"time"
)

func TestConvergeAfter(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	steps := []Step{
		{Start: at(0), End: at(5)},   // over before the fault
		{Start: at(8), End: at(14)},  // in progress: 4 s after
		{Start: at(10), End: at(17)}, // started at the fault: 7 s after
		{Start: at(12), End: at(20)}, // started after it
		{Start: at(9)},               // never converged: stuck, not a time
	}
	got := ConvergeAfter(at(10), steps)
	if want := []time.Duration{4 * time.Second, 7 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
