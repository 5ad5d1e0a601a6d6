package history

import "maps"

// StaleReads counts, by resource (Key.Resource), the stale reads: reads older than a write the
// same process had finished before they started, that is, the reads that broke ReadYourWrites.
// This is the one judge of stale reads in the test tree; the race experiment and the soak
// report its counts.
func (r *Report) StaleReads() map[string]int {
	out := map[string]int{}
	for _, v := range r.Violations {
		if v.Guarantee == ReadYourWrites {
			out[v.Event.Key.Resource]++
		}
	}
	return out
}

// ReadsOf counts, by resource, the reads ReadYourWrites judged: those that followed a write of
// their key by their process, the reads that could be stale.
func (r *Report) ReadsOf() map[string]int { return maps.Clone(r.rywJudged) }
