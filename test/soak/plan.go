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
