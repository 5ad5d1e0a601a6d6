package history

import (
	"fmt"
	"slices"
)

// sweepKeys judges every read against ReadYourWrites, MonotonicReads, NoResurrection and
// DeleteFloor; v names the UID of a revision a read gives none for.
func (c *processCheck) sweepKeys(v *versions) {
	for _, ke := range c.byKey() {
		c.sweepKey(ke, v)
	}
}

// knowledge is what a process knew of one key when a read started: its newest write, newest
// read, newest delete with a resourceVersion and delete with the highest floor (deleteFloors)
// that had ended, and the UIDs it knew deleted.
type knowledge struct {
	write, read, floor, top int // indexes of the newest; -1 for none
	gone                    map[string]int
	deletes                 []int          // every delete of the key, for coveredByDelete
	floors                  map[int]string // deleteFloors
	versions                *versions
}

// sweepKey walks the reads of one key in Start order, folding into knowledge every write,
// read and delete that ended strictly before each read started.
func (c *processCheck) sweepKey(ke *keyEvents, v *versions) {
	ev := c.h.Events
	k := knowledge{write: -1, read: -1, floor: -1, top: -1, gone: map[string]int{}, deletes: ke.deletes, floors: c.deleteFloors(ke), versions: v}
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
			if e := &ev[ke.deletes[d]]; e.UID != "" {
				k.gone[e.UID] = ke.deletes[d]
			}
			if e := &ev[ke.deletes[d]]; e.RV != "" {
				k.floor = c.newer(k.floor, ke.deletes[d])
			}
			if f := k.floors[ke.deletes[d]]; f != "" && (k.top < 0 || compareRV(f, k.floors[k.top]) > 0) {
				k.top = ke.deletes[d]
			}
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

// coveredByDelete reports whether a delete that read r may reflect is at least as new as the
// event at index i. The delete ended before r started, or is the process's own and started
// before r ended (the write-back overlay holds its tombstone before the answer is recorded);
// and it carries a resourceVersion not older than i's, or carries none and removed i's UID or
// is the process's own and started after i ended. A delete older than i (a stale relist's)
// covers nothing, whatever its UID.
func (c *processCheck) coveredByDelete(k *knowledge, r, i int) bool {
	ev := c.h.Events
	read, e := &ev[r], &ev[i]
	for _, j := range k.deletes {
		d := &ev[j]
		made := d.Source == DeleteMade
		if !(d.End < read.Start || made && d.Start < read.End) {
			continue
		}
		if wellFormed(d.RV) {
			if compareRV(d.RV, e.RV) >= 0 {
				return true
			}
			continue
		}
		if d.UID != "" && d.UID == e.UID || made && d.Start > e.End {
			return true
		}
	}
	return false
}

// judgeRead judges the read at index i against what the process knew when it started.
func (c *processCheck) judgeRead(k *knowledge, i int) {
	e := &c.h.Events[i]
	if e.Found && !wellFormed(e.RV) {
		return // counted as unparseable
	}
	resurrected := false
	if e.Found && len(k.gone) > 0 {
		c.judge(NoResurrection, i)
		uid, told := e.UID, ""
		if named, ok := k.versions.named(e.Key, e.RV, ""); uid == "" && ok {
			uid, told = named.uid, " (its revision's, as told by a "+named.from+")"
		}
		if d, ok := k.gone[uid]; ok && uid != "" {
			c.violate(NoResurrection, i, fmt.Sprintf("read UID %s%s after the process learned it was deleted", uid, told), d)
			resurrected = true
		}
	}
	if e.Found && k.top >= 0 {
		c.judge(DeleteFloor, i)
		d, f := &c.h.Events[k.top], k.floors[k.top]
		switch {
		case k.floor >= 0 && compareRV(e.RV, c.h.Events[k.floor].RV) < 0:
			d = &c.h.Events[k.floor]
			c.violate(DeleteFloor, i, fmt.Sprintf("read resourceVersion %s, older than %s, at which the process knew the key deleted (%s)", e.RV, d.RV, d.Source), k.floor)
		case !resurrected && compareRV(e.RV, f) <= 0:
			// No object made after the delete is this old: the read is of the deleted one, or older.
			c.violate(DeleteFloor, i, fmt.Sprintf("read resourceVersion %s, no newer than %s, the deleted object's as the process knew it before a delete (%s)", e.RV, f, d.Source), k.top)
		}
	}
	if k.write >= 0 {
		c.judge(ReadYourWrites, i)
		c.judgeAgainst(ReadYourWrites, k, i, k.write, "the process's own write ended before it started")
	}
	if k.read >= 0 {
		c.judge(MonotonicReads, i)
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
	case !e.Found && !c.coveredByDelete(k, i, prior):
		c.violate(g, i, fmt.Sprintf("read not found, though resourceVersion %s, which %s, was deleted by no delete the process knew of", p.RV, why), prior)
	}
}

func (c *processCheck) readRelation(i, prior int) string {
	if c.h.Events[i].Worker == c.h.Events[prior].Worker {
		return "the same worker read before"
	}
	return fmt.Sprintf("worker %d read before", c.h.Events[prior].Worker)
}

// deleteFloors returns, by delete of the key, the newest resourceVersion of the object it
// removed that the process knew: the delete's own; else, for a delete of the process's own,
// the newest of the key it had read or been answered before sending it (every revision after
// the delete is newer); else the newest at which it had read or written the deleted UID.
func (c *processCheck) deleteFloors(ke *keyEvents) map[int]string {
	ev := c.h.Events
	out := map[int]string{}
	for _, j := range ke.deletes {
		d := &ev[j]
		if wellFormed(d.RV) {
			out[j] = d.RV
			continue
		}
		for _, i := range slices.Concat(ke.writes, ke.reads) {
			e := &ev[i]
			if e.End >= d.Start || !e.Found && e.Kind == KindRead || !wellFormed(e.RV) || d.Source != DeleteMade && (d.UID == "" || e.UID != d.UID) {
				continue
			}
			if f, ok := out[j]; !ok || compareRV(e.RV, f) > 0 {
				out[j] = e.RV
			}
		}
	}
	return out
}
