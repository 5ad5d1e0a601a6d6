package history

import "fmt"

// checkDecisions judges every admin call against FreshDecisions: its reconcile read its object
// before the call started, that read's resourceVersion parsed and a read guarantee judged it,
// and no read of that reconcile before the call was flagged. Run it after every read
// guarantee.
func (c *processCheck) checkDecisions() {
	ev := c.h.Events
	reads := map[uint64][]int{} // by reconcile, in Start order
	for i := range ev {
		if ev[i].Kind == KindRead && ev[i].Reconcile != 0 {
			reads[ev[i].Reconcile] = append(reads[ev[i].Reconcile], i)
		}
	}
	for i := range ev {
		if ev[i].Kind == KindAdmin {
			c.report.Judged[FreshDecisions]++
			c.judgeDecision(i, reads[ev[i].Reconcile])
		}
	}
}

func (c *processCheck) judgeDecision(i int, reads []int) {
	a := &c.h.Events[i]
	if a.Reconcile == 0 {
		c.violate(FreshDecisions, i, "admin call made outside any reconcile")
		return
	}
	found, judged := -1, -1
	for _, j := range reads {
		r := &c.h.Events[j]
		if r.End > a.Start {
			continue // not finished before the call
		}
		if c.flagged[j] {
			c.violate(FreshDecisions, i, fmt.Sprintf("admin call decided on a read of %s that broke a guarantee", r.Key), j)
			return
		}
		if r.Key == a.Key && r.Found {
			found = j
			if wellFormed(r.RV) && c.judged[j] {
				judged = j
			}
		}
	}
	switch {
	case found < 0:
		c.violate(FreshDecisions, i, fmt.Sprintf("no read of %s that found it preceded the call in reconcile %d", a.Key, a.Reconcile))
	case judged < 0:
		c.violate(FreshDecisions, i, fmt.Sprintf("admin call rests on no judged read of %s: its reconcile's reads of it had a resourceVersion "+
			"that did not parse, or no evidence to judge them by", a.Key), found)
	}
}
