package history

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Admin calls the safety guarantees read, by Event.Verb.
const (
	CallDecommission   = "decommission"
	CallRecommission   = "recommission"
	CallMaintenanceOn  = "maintenance-on"
	CallMaintenanceOff = "maintenance-off"
	CallDeletePod      = "delete-pod"
)

// checkSafety judges the admin calls of every history, on the timeline, against
// OneDecommission, OneUnavailable and LeaderDecides.
func checkSafety(in Input, tl *timeline) {
	calls := tl.collect(func(e *Event) bool { return e.Kind == KindAdmin })
	checkDecommissions(tl, calls)
	if slices.Contains(in.Untraced, CallMaintenanceOff) {
		tl.report().NotJudged[OneUnavailable] = "the histories' tracer records no " + CallMaintenanceOff
	} else {
		checkUnavailable(tl, calls, in.Outages)
	}
	checkLeaders(tl, calls)
}

func (t *timeline) report() *Report {
	if len(t.checks) == 0 {
		return &Report{Judged: map[Guarantee]int{}, NotJudged: map[Guarantee]string{}}
	}
	return t.checks[0].report
}

// broker names a broker of one cluster: the admin call's Key and Broker.
type broker struct {
	key Key
	id  string
}

func brokerOf(e *Event) broker { return broker{e.Key, e.Broker} }

func succeeded(e *Event) bool { return e.Err == "" }

// when formats a timeline time for a detail.
func when(t int64) string { return time.Duration(t).String() }

// checkDecommissions: a decommission of a broker, whatever its outcome, violates
// OneDecommission when a successful decommission of the same broker ended before it started
// and no successful recommission of it started after that decommission started and ended
// before this one started.
func checkDecommissions(tl *timeline, calls []ref) {
	byBroker := map[broker][]ref{}
	for _, r := range calls {
		if e := tl.event(r); e.Verb == CallDecommission || e.Verb == CallRecommission {
			byBroker[brokerOf(e)] = append(byBroker[brokerOf(e)], r)
		}
	}
	for _, r := range calls {
		e := tl.event(r)
		if e.Verb != CallDecommission {
			continue
		}
		tl.checks[r.h].judge(OneDecommission, r.i)
		prior := -1
		for j, d := range byBroker[brokerOf(e)] {
			if de := tl.event(d); de.Verb == CallDecommission && succeeded(de) && d.end < r.start {
				prior = j
			}
		}
		if prior < 0 {
			continue
		}
		d := byBroker[brokerOf(e)][prior]
		recommissioned := slices.ContainsFunc(byBroker[brokerOf(e)], func(x ref) bool {
			xe := tl.event(x)
			return xe.Verb == CallRecommission && succeeded(xe) && x.start > d.start && x.end < r.start
		})
		if !recommissioned {
			tl.violate(OneDecommission, r, fmt.Sprintf("decommission of broker %s of %s, which %s had decommissioned at %s, with no recommission between",
				e.Broker, e.Key, tl.process(d), when(d.start)), &d)
		}
	}
}

// checkUnavailable: a broker is in maintenance from the end of a successful maintenance-on
// until the start of a successful maintenance-off of it. A maintenance-on or delete-pod of a
// broker, whatever its outcome, violates OneUnavailable when it starts while another broker of
// the same cluster is in maintenance, or in one of outages.
func checkUnavailable(tl *timeline, calls []ref, outages []Outage) {
	byKey := map[Key][]ref{} // each cluster's calls, in Start order
	for _, r := range calls {
		byKey[tl.event(r).Key] = append(byKey[tl.event(r).Key], r)
	}
	for _, r := range calls {
		e := tl.event(r)
		if e.Verb != CallMaintenanceOn && e.Verb != CallDeletePod {
			continue
		}
		tl.checks[r.h].judge(OneUnavailable, r.i)
		if on, ok := inMaintenance(tl, byKey[e.Key], r); ok {
			oe := tl.event(on)
			tl.violate(OneUnavailable, r, fmt.Sprintf("%s of broker %s of %s while broker %s was in maintenance (maintenance-on by %s at %s)",
				e.Verb, e.Broker, e.Key, oe.Broker, tl.process(on), when(on.start)), &on)
			continue
		}
		if o, ok := inOutage(tl, outages, r); ok {
			tl.violate(OneUnavailable, r, fmt.Sprintf("%s of broker %s of %s while %s", e.Verb, e.Broker, e.Key, o), nil)
		}
	}
}

// inMaintenance returns the maintenance-on of another broker whose maintenance was on when x
// started; calls are the calls of x's cluster, in Start order.
func inMaintenance(tl *timeline, calls []ref, x ref) (ref, bool) {
	xe := tl.event(x)
	var open []ref
	for _, r := range calls {
		if r.start >= x.start {
			break
		}
		e := tl.event(r)
		if e.Broker == xe.Broker || !succeeded(e) {
			continue
		}
		switch {
		case e.Verb == CallMaintenanceOn && r.end < x.start:
			open = append(open, r)
		case e.Verb == CallMaintenanceOff:
			open = slices.DeleteFunc(open, func(o ref) bool { return tl.event(o).Broker == e.Broker })
		}
	}
	if len(open) == 0 {
		return ref{}, false
	}
	return open[0], true
}

// checkLeaders: an admin call violates LeaderDecides when the last leadership event that began
// before it started is another process's. Calls before any leadership are not judged.
func checkLeaders(tl *timeline, calls []ref) {
	leaderships := tl.collect(func(e *Event) bool { return e.Kind == KindLeading })
	if len(leaderships) == 0 {
		tl.report().NotJudged[LeaderDecides] = "no leadership events"
		return
	}
	for _, r := range calls {
		last := -1
		for j, l := range leaderships {
			if l.start < r.start {
				last = j
			}
		}
		if last < 0 {
			continue
		}
		tl.checks[r.h].judge(LeaderDecides, r.i)
		if l := leaderships[last]; l.h != r.h {
			e := tl.event(r)
			tl.violate(LeaderDecides, r, fmt.Sprintf("%s of broker %s by a deposed leader: %s became leader at %s, before the call started at %s",
				e.Verb, e.Broker, tl.process(l), when(l.start), when(r.start)), &l)
		}
	}
}

// judgeEvidence fails the report for what leaves a run without evidence (doc.go, "No green
// run without evidence").
func (r *Report) judgeEvidence(in Input, checks []*processCheck) {
	seen := map[string]bool{}
	for _, c := range checks {
		if seen[c.h.Process] {
			r.Failures = append(r.Failures, fmt.Sprintf("two histories share the process name %q", c.h.Process))
		}
		seen[c.h.Process] = true
		reads := 0
		for i := range c.h.Events {
			if c.h.Events[i].Kind == KindRead {
				reads++
			}
		}
		r.JudgedReads += len(c.judged)
		if reads > 0 && len(c.judged) == 0 {
			r.Failures = append(r.Failures, fmt.Sprintf("history %s judged none of its %d reads", c.h.Process, reads))
		}
	}
	if r.JudgedReads == 0 {
		r.Failures = append(r.Failures, "no read was judged")
	}
	for _, g := range []struct {
		gap  Gap
		n    int
		what string
	}{
		{GapUnparseable, r.Unparseable, "events whose resourceVersion does not parse"},
		{GapUnattributed, r.Unattributed, "reads made in no reconcile"},
		{GapUnlinked, r.Unlinked, "leaderships whose Lease write is not in the audit log"},
		{GapUnreadable, r.Unreadable, "trace lines that could not be parsed"},
	} {
		if _, expected := in.Expect[g.gap]; g.n > 0 && !expected {
			r.Failures = append(r.Failures, strconv.Itoa(g.n)+" "+g.what)
		}
	}
}
