package harness

import "time"

// Total sums counts, such as requests by verb.
func Total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// DrawSeed returns seed, or one drawn from the clock when seed is 0 (a run prints the seed it
// used, so that it can be replayed).
func DrawSeed(seed uint64) uint64 {
	if seed == 0 {
		return uint64(time.Now().UnixNano())
	}
	return seed
}
