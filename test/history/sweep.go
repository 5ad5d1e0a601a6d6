package history

import "fmt"

// sweepKeys judges every read against ReadYourWrites, MonotonicReads and NoResurrection.
func (c *processCheck) sweepKeys() {
	for _, ke := range c.byKey() {
		c.sweepKey(ke)
	}
}

// knowledge is what a process knew of one key when a read started: its newest write and
// newest read that had ended, and the deletes it had made or observed.
type knowledge struct {
	write, read int // indexes of the newest; -1 for none
	gone        map[string]int
	// newestDeleteRV is the highest resourceVersion of a delete (index; -1 for none) and
	// lastMadeDelete the latest Start of a delete the process made (-1 << 63 for none).
	newestDeleteRV int
	lastMadeDelete int64
}

// sweepKey walks the reads of one key in Start order, folding into knowledge every write,
// read and delete that ended strictly before each read started.
func (c *processCheck) sweepKey(ke *keyEvents) {
	ev := c.h.Events
	k := knowledge{write: -1, read: -1, gone: map[string]int{}, newestDeleteRV: -1, lastMadeDelete: -1 << 63}
	var w, r, d int
	for _, i := range ke.reads {
		start := ev[i].Start
		for ; w < len(ke.writes) && ev[ke.writes[w]].End < start; w++ {
			k.write = c.newer(k.write, ke.writes[w])
		}
		for ; r < len(ke.readsByEnd) && ev[ke.readsByEnd[r]].End < start; r++ {
			if j := ke.readsByEnd[r]; ev[j].Found {
				k.read = c.newer(k.read, j)
			}
		}
		for ; d < len(ke.deletes) && ev[ke.deletes[d]].End < start; d++ {
			c.foldDelete(&k, ke.deletes[d])
		}
		c.judgeRead(&k, i)
	}
}

// newer returns whichever of the events at indexes cur and cand has the higher well-formed
// resourceVersion (cur when equal); a malformed cand is counted and passed over.
func (c *processCheck) newer(cur, cand int) int {
	ev := c.h.Events
	if !wellFormed(ev[cand].RV) {
		return cur // counted as unparseable
	}
	if cur < 0 || compareRV(ev[cand].RV, ev[cur].RV) > 0 {
		return cand
	}
	return cur
}

func (c *processCheck) foldDelete(k *knowledge, i int) {
	e := &c.h.Events[i]
	if e.UID != "" {
		k.gone[e.UID] = i
	}
	if e.RV != "" {
		k.newestDeleteRV = c.newer(k.newestDeleteRV, i)
	}
	if e.Source == DeleteMade && e.Start > k.lastMadeDelete {
		k.lastMadeDelete = e.Start
	}
}

// coveredByDelete reports whether a delete the process knew of is at least as new as the
// event at index i: it removed i's UID, carries a resourceVersion not older than i's, or was
// made by the process after i ended.
func (c *processCheck) coveredByDelete(k *knowledge, i int) bool {
	e := &c.h.Events[i]
	if _, ok := k.gone[e.UID]; ok && e.UID != "" {
		return true
	}
	if k.newestDeleteRV >= 0 && compareRV(c.h.Events[k.newestDeleteRV].RV, e.RV) >= 0 {
		return true
	}
	return k.lastMadeDelete > e.End
}

// judgeRead judges the read at index i against what the process knew when it started.
func (c *processCheck) judgeRead(k *knowledge, i int) {
	e := &c.h.Events[i]
	if e.Found && !wellFormed(e.RV) {
		return // counted as unparseable
	}
	if e.Found && len(k.gone) > 0 {
		c.report.Judged[NoResurrection]++
		if d, ok := k.gone[e.UID]; ok && e.UID != "" {
			c.violate(NoResurrection, i, fmt.Sprintf("read UID %s after the process learned it was deleted", e.UID), d)
		}
	}
	if k.write >= 0 {
		c.report.Judged[ReadYourWrites]++
		c.judgeAgainst(ReadYourWrites, k, i, k.write, "the process's own write ended before it started")
	}
	if k.read >= 0 {
		c.report.Judged[MonotonicReads]++
		c.judgeAgainst(MonotonicReads, k, i, k.read, c.readRelation(i, k.read))
	}
}

// judgeAgainst flags read i if it is older than the event at index prior: found at a lower
// resourceVersion, or not found with no delete covering prior.
func (c *processCheck) judgeAgainst(g Guarantee, k *knowledge, i, prior int, why string) {
	e, p := &c.h.Events[i], &c.h.Events[prior]
	switch {
	case e.Found && compareRV(e.RV, p.RV) < 0:
		c.violate(g, i, fmt.Sprintf("read resourceVersion %s, older than %s, which %s", e.RV, p.RV, why), prior)
	case !e.Found && !c.coveredByDelete(k, prior):
		c.violate(g, i, fmt.Sprintf("read not found, though resourceVersion %s, which %s, was deleted by no delete the process knew of", p.RV, why), prior)
	}
}

func (c *processCheck) readRelation(i, prior int) string {
	if c.h.Events[i].Worker == c.h.Events[prior].Worker {
		return "the same worker read before"
	}
	return fmt.Sprintf("worker %d read before", c.h.Events[prior].Worker)
}
