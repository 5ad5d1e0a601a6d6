package history

import (
	"cmp"
	"slices"
)

// timeline puts the events of every history on one clock, for the guarantees that compare
// processes: an event's time there is its history's Anchor, as an offset from the first
// history's, plus its own time. Anchors recorded in one test process carry a monotonic
// reading and are compared by it; anchors read from files, by the wall clock.
type timeline struct {
	checks  []*processCheck
	offsets []int64
}

func newTimeline(checks []*processCheck) *timeline {
	t := &timeline{checks: checks, offsets: make([]int64, len(checks))}
	for i, c := range checks {
		if i > 0 && !c.h.Anchor.IsZero() && !checks[0].h.Anchor.IsZero() {
			t.offsets[i] = int64(c.h.Anchor.Sub(checks[0].h.Anchor))
		}
	}
	return t
}

// ref locates an event on the timeline: checks[h].h.Events[i], and its Start and End there.
type ref struct {
	h, i       int
	start, end int64
}

func (t *timeline) event(r ref) *Event { return &t.checks[r.h].h.Events[r.i] }

// collect returns every event keep accepts, of every history, in timeline Start order.
func (t *timeline) collect(keep func(*Event) bool) []ref {
	var out []ref
	for h, c := range t.checks {
		for i := range c.h.Events {
			if e := &c.h.Events[i]; keep(e) {
				out = append(out, ref{h, i, e.Start + t.offsets[h], e.End + t.offsets[h]})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b ref) int { return cmp.Compare(a.start, b.start) })
	return out
}

// violate records a violation of g by the event at r; witness, when it is an event of the same
// history, is marked in the excerpt.
func (t *timeline) violate(g Guarantee, r ref, detail string, witness *ref) {
	var ws []int
	if witness != nil && witness.h == r.h {
		ws = append(ws, witness.i)
	}
	t.checks[r.h].violate(g, r.i, detail, ws...)
}

// process names the process of the event at r.
func (t *timeline) process(r ref) string { return t.checks[r.h].h.Process }
