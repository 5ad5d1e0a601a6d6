package soak

import (
	"time"
)

// Step is one of a cluster's scaling steps or rolling restarts as the harness saw it from the
// apiserver's objects.
type Step struct {
	Start, End time.Time // End is zero if the step never converged
	From, To   int32
	// Rollout marks a rolling restart (a change of the pod template); From and To are then the
	// cluster's replicas, unchanged.
	Rollout bool
	// Moved is the brokers a pool move took from one pool to the other (From and To are then
	// the cluster's brokers, unchanged): each of them was decommissioned.
	Moved int32
}

// ConvergeAfter returns, for a fault at at, how long after it each step then in progress
// converged; steps that never converged are left out (they count as stuck).
func ConvergeAfter(at time.Time, steps []Step) []time.Duration {
	var out []time.Duration
	for _, s := range steps {
		if !s.Start.After(at) && !s.End.IsZero() && s.End.After(at) {
			out = append(out, s.End.Sub(at))
		}
	}
	return out
}
