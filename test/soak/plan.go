package soak

import "math/rand/v2"

// NewPlan draws the order of the faults: rounds rounds, each every kind once in an order drawn
// from seed, so that every kind is injected exactly rounds times and none twice in a row within a
// round.
func NewPlan(seed uint64, kinds []string, rounds int) []string {
	rng := rand.New(rand.NewPCG(seed, 0xfa017))
	var out []string
	for range rounds {
		round := append([]string(nil), kinds...)
		rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		out = append(out, round...)
	}
	return out
}

// rolloutNext tells whether a cluster's driver makes a rolling restart its next step: the
// first step always is one, then a step with probability share (-rollout-share, drawn from rng). Never while the stuck-drain
// fault's scale-up is pending: the cluster is then still draining towards a size its replication
// factor forbids, so a rollout at the size the driver knew would never converge; the scale-up
// that frees the drain comes first.
func rolloutNext(rollouts int, scaleUpPending bool, share float64, rng *rand.Rand) bool {
	if scaleUpPending {
		return false
	}
	return rollouts == 0 || rng.Float64() < share
}

// moveNext tells whether a cluster's driver makes a pool move its next step: the step after
// its first rolling restart always is one (so that every cluster moves once early, while the
// faults run), then a step with probability share (-move-share). A share of 0 never moves.
// Never while the stuck-drain fault's scale-up is pending, as for rolloutNext.
func moveNext(moves, rollouts int, scaleUpPending bool, share float64, rng *rand.Rand) bool {
	if scaleUpPending || share == 0 || rollouts == 0 {
		return false
	}
	return moves == 0 || rng.Float64() < share
}
