package history

import (
	"fmt"
	"sort"
)

// checkFuture judges every read that found its key at a resourceVersion that parsed against
// NoFuture, across processes on the timeline:
//
//   - a successful write of the key that started after the read ended was answered with a
//     resourceVersion at least the read's (a no-op write answers the current one, which is
//     never older than what was read);
//   - with in.AllWrites, some write had reached the read's resourceVersion: the highest
//     answered by a write of any key and any process that started before the read ended, or
//     held by any entry of the audit log, is at least the read's.
func checkFuture(in Input, tl *timeline) {
	isRead := func(e *Event) bool { return e.Kind == KindRead && e.Found && wellFormed(e.RV) }
	isWrite := func(e *Event) bool { return e.Kind == KindWrite && e.Succeeded() && wellFormed(e.RV) }
	reads, writes := tl.collect(isRead), tl.collect(isWrite)
	ceiling := newCeiling(in, tl, writes)
	later := map[Key][]ref{} // each key's writes, in Start order
	for _, w := range writes {
		k := tl.event(w).Key
		later[k] = append(later[k], w)
	}
	lowest := map[Key][]int{} // lowest[k][j]: index in later[k] of the lowest answer from j on
	for k, ws := range later {
		low := make([]int, len(ws))
		for j := len(ws) - 1; j >= 0; j-- {
			low[j] = j
			if j+1 < len(ws) && compareRV(tl.event(ws[low[j+1]]).RV, tl.event(ws[j]).RV) < 0 {
				low[j] = low[j+1]
			}
		}
		lowest[k] = low
	}
	for _, r := range reads {
		e := tl.event(r)
		var next *ref
		if ws := later[e.Key]; len(ws) > 0 {
			if j := sort.Search(len(ws), func(j int) bool { return ws[j].start > r.end }); j < len(ws) {
				next = &ws[lowest[e.Key][j]]
			}
		}
		if next == nil && ceiling == nil {
			continue
		}
		tl.checks[r.h].judge(NoFuture, r.i)
		if top, ok := ceiling.at(r.end); ceiling != nil && (!ok || compareRV(e.RV, top) > 0) {
			if !ok {
				top = "none"
			}
			tl.violate(NoFuture, r, fmt.Sprintf("read resourceVersion %s, which no write of any process and no audit entry had reached "+
				"when the read ended (the highest: %s)", e.RV, top), nil)
			continue
		}
		if next != nil {
			if w := tl.event(*next); compareRV(w.RV, e.RV) < 0 {
				tl.violate(NoFuture, r, fmt.Sprintf("read resourceVersion %s, newer than %s, the answer of a %s of the key by %s that started after "+
					"the read ended: the read came from the future, or the write's answer is older than what had been read", e.RV, w.RV, w.Verb, tl.process(*next)), next)
			}
		}
	}
}

// ceiling is the highest resourceVersion the writes had reached, by time (Input.AllWrites).
type ceiling struct {
	starts []int64  // the writes' Starts on the timeline, in order
	tops   []string // tops[j]: the highest answer of writes 0..j
	audit  string   // the highest in the audit log; "" for none
}

// newCeiling returns nil unless in.AllWrites.
func newCeiling(in Input, tl *timeline, writes []ref) *ceiling {
	if !in.AllWrites {
		return nil
	}
	c := &ceiling{}
	for _, w := range writes {
		rv := tl.event(w).RV
		if n := len(c.tops); n > 0 && compareRV(c.tops[n-1], rv) > 0 {
			rv = c.tops[n-1]
		}
		c.starts, c.tops = append(c.starts, w.start), append(c.tops, rv)
	}
	if in.Audit != nil {
		for _, a := range in.Audit.Entries {
			if a.Succeeded() && wellFormed(a.RV) && (c.audit == "" || compareRV(a.RV, c.audit) > 0) {
				c.audit = a.RV
			}
		}
	}
	return c
}

// at returns the highest resourceVersion reached by writes that started before t, or held by
// the audit log; ok is false when there is none.
func (c *ceiling) at(t int64) (string, bool) {
	if c == nil {
		return "", false
	}
	top := c.audit
	if j := sort.Search(len(c.starts), func(j int) bool { return c.starts[j] >= t }); j > 0 {
		if top == "" || compareRV(c.tops[j-1], top) > 0 {
			top = c.tops[j-1]
		}
	}
	return top, top != ""
}
