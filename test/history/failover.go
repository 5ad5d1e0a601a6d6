package history

import (
	"fmt"
	"slices"
)

// eventRef locates an event: checks[h].h.Events[i].
type eventRef struct{ h, i int }

// appliedWrite is another process's write the apiserver applied before a leadership began.
type appliedWrite struct {
	entry *AuditEntry
	rv    string
	uid   string
}

// checkFailover judges FailoverReads. For each leadership event L of a process Q, the writes
// that count are the audit log's applied writes (AppliedBefore the Lease write that made Q
// leader) that belong to another process's history, or that no history holds and were made by
// in.OperatorUser. Every read Q started after L (and before Q's next leadership event) is
// judged against the newest such write of its key.
func checkFailover(in Input, checks []*processCheck) {
	writes := map[string]eventRef{} // by audit ID
	for h, c := range checks {
		for i := range c.h.Events {
			hist := c.h
			if e := &hist.Events[i]; e.Kind == KindWrite && e.AuditID != "" {
				writes[e.AuditID] = eventRef{h, i}
			}
		}
	}
	for q, c := range checks {
		hist := c.h
		leaderships := leadingEvents(hist)
		for n, l := range leaderships {
			lease, ok := in.Audit.Entry(leaseAuditID(hist, l))
			if !ok {
				c.report.Unlinked++
				continue
			}
			until := int64(1<<63 - 1)
			if n+1 < len(leaderships) {
				until = hist.Events[leaderships[n+1]].End
			}
			applied := appliedBefore(in, checks, writes, q, lease)
			c.judgeAfterLeading(in.Audit, lease, hist.Events[l].End, until, applied)
		}
	}
}

func leadingEvents(h *History) []int {
	var out []int
	for i := range h.Events {
		if h.Events[i].Kind == KindLeading {
			out = append(out, i)
		}
	}
	return out
}

// leaseAuditID is the audit ID of the Lease write behind leadership event l: its own, or that
// of the process's last successful write of the Lease that ended by the event's start.
func leaseAuditID(h *History, l int) string {
	e := &h.Events[l]
	if e.AuditID != "" {
		return e.AuditID
	}
	id, end := "", int64(-1<<63)
	for i := range h.Events {
		w := &h.Events[i]
		if w.Kind == KindWrite && w.Key == e.Key && w.Succeeded() && w.AuditID != "" && w.End <= e.Start && w.End >= end {
			id, end = w.AuditID, w.End
		}
	}
	return id
}

// appliedBefore returns, per key, the newest write of another process applied before lease.
func appliedBefore(in Input, checks []*processCheck, writes map[string]eventRef, q int, lease *AuditEntry) map[Key]appliedWrite {
	r := checks[q].report
	out := map[Key]appliedWrite{}
	for i := range in.Audit.Entries {
		a := &in.Audit.Entries[i]
		if !AppliedBefore(a, lease) || a.Verb == "delete" || a.Verb == "deletecollection" {
			continue
		}
		w := appliedWrite{entry: a, rv: a.RV, uid: a.UID}
		ref, recorded := writes[a.AuditID]
		switch {
		case recorded && ref.h == q:
			continue // the process's own write: ReadYourWrites judges it
		case recorded:
			if e := &checks[ref.h].h.Events[ref.i]; e.RV != "" {
				w.rv, w.uid = e.RV, e.UID
			}
		case in.OperatorUser == "" || a.User != in.OperatorUser:
			continue
		}
		if !wellFormed(w.rv) {
			r.Unresolved++
			continue
		}
		if cur, ok := out[a.Key]; !ok || compareRV(w.rv, cur.rv) > 0 {
			out[a.Key] = w
		}
	}
	return out
}

// judgeAfterLeading judges the reads h started in (from, until) against applied; lease is the
// audit entry of the Lease write that made the process leader.
func (c *processCheck) judgeAfterLeading(audit *Audit, lease *AuditEntry, from, until int64, applied map[Key]appliedWrite) {
	h := c.h
	for i := range h.Events {
		e := &h.Events[i]
		w, ok := applied[e.Key]
		if e.Kind != KindRead || e.Start <= from || e.Start >= until || !ok || (e.Found && !wellFormed(e.RV)) {
			continue
		}
		c.judge(FailoverReads, i)
		switch {
		case e.Found && compareRV(e.RV, w.rv) < 0:
			c.violate(FailoverReads, i, fmt.Sprintf("read resourceVersion %s after becoming leader, older than %s, which another process wrote "+
				"and the apiserver applied before the Lease write (audit %s, line %d)", e.RV, w.rv, w.entry.AuditID, w.entry.Line))
		case !e.Found && !deletedBefore(audit, lease, h, i, w):
			c.violate(FailoverReads, i, fmt.Sprintf("read not found after becoming leader, though another process wrote resourceVersion %s "+
				"(audit %s, line %d) and no delete of it is known before the read", w.rv, w.entry.AuditID, w.entry.Line))
		}
	}
}

// deletedBefore reports whether the object w wrote is known deleted before read i started: the
// process knew of a delete of w's UID, or of w's key at a resourceVersion at least w's; or the
// audit log holds a successful delete of w's key completed after w and before the apiserver
// received the Lease write or a write of the process that ended before i started. A delete
// known only later excuses nothing: it may have come after the read.
func deletedBefore(audit *Audit, lease *AuditEntry, h *History, i int, w appliedWrite) bool {
	r := &h.Events[i]
	horizon := lease.Received
	for j := range h.Events {
		d := &h.Events[j]
		if d.Kind == KindDelete && d.Key == r.Key && (d.End < r.Start || d.Source == DeleteMade && d.Start < r.End) &&
			(d.UID != "" && d.UID == w.uid || wellFormed(d.RV) && compareRV(d.RV, w.rv) >= 0) {
			return true
		}
		if a, ok := audit.Entry(d.AuditID); ok && d.Kind == KindWrite && d.End < r.Start && a.Received.After(horizon) {
			horizon = a.Received
		}
	}
	return slices.ContainsFunc(audit.Entries, func(a AuditEntry) bool {
		return a.Key == w.entry.Key && a.Verb == "delete" && a.Succeeded() && a.Completed.After(w.entry.Completed) && a.Completed.Before(horizon)
	})
}
