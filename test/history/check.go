package history

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Guarantee names a property the checker judges.
type Guarantee string

const (
	// ReadYourWrites: a read that started after a write of the same process ended sees that
	// write or a newer version.
	ReadYourWrites Guarantee = "read-your-writes"
	// MonotonicReads: a read never returns an older version than a read of the same key that
	// ended before it started, in the same process (whichever workers made them).
	MonotonicReads Guarantee = "monotonic-reads"
	// NoResurrection: once a process made or observed the delete of a UID, it reads that UID no
	// more.
	NoResurrection Guarantee = "no-resurrection"
	// FreshDecisions: an admin call follows, in its reconcile, a read of its object, and no read
	// of that reconcile before it breaks a guarantee.
	FreshDecisions Guarantee = "fresh-decisions"
	// FailoverReads: a new leader reads nothing older than the writes of other processes the
	// apiserver had applied before it received the Lease write that made it leader.
	FailoverReads Guarantee = "failover-reads"
)

// Guarantees lists every Guarantee in report order.
var Guarantees = []Guarantee{ReadYourWrites, MonotonicReads, NoResurrection, FreshDecisions, FailoverReads}

// Input is what Check judges.
type Input struct {
	// Histories holds one History per process; process names must be unique.
	Histories []*History
	// Audit is the apiserver's audit log; nil leaves FailoverReads unjudged.
	Audit *Audit
	// OperatorUser is the audit username of the operator's processes. An applied write by it
	// that no history holds (its process died before recording it) counts, for
	// FailoverReads, as another process's. "": such writes are ignored.
	OperatorUser string
}

// Violation is one broken guarantee.
type Violation struct {
	Guarantee Guarantee
	Process   string
	// Event is the offending read or admin call.
	Event Event
	// Detail says what it contradicts, in one sentence.
	Detail string
	// Excerpt shows the events around it, one per line; see doc.go.
	Excerpt string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s violated in %s: %s\n%s", v.Guarantee, v.Process, v.Detail, v.Excerpt)
}

// Report is what Check found.
type Report struct {
	Processes, Events, Reads, Writes, Deletes, AdminCalls int
	// Judged counts, per guarantee, the reads (or admin calls) a guarantee constrained.
	Judged map[Guarantee]int
	// Unparseable counts events whose resourceVersion CompareResourceVersion cannot read;
	// they are neither judged nor used as evidence.
	Unparseable int
	// Unresolved counts applied writes of other processes whose resourceVersion neither their
	// history nor the audit log holds; FailoverReads cannot use them.
	Unresolved int
	// Unlinked counts leadership events whose Lease write is not in the audit log.
	Unlinked   int
	Violations []Violation
}

// Count returns how many violations of g the report holds.
func (r *Report) Count(g Guarantee) int {
	n := 0
	for _, v := range r.Violations {
		if v.Guarantee == g {
			n++
		}
	}
	return n
}

// Summary is the report in a few lines, for a test log or a document.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d events of %d processes: %d reads, %d writes, %d deletes, %d admin calls; %d violations\n",
		r.Events, r.Processes, r.Reads, r.Writes, r.Deletes, r.AdminCalls, len(r.Violations))
	for _, g := range Guarantees {
		fmt.Fprintf(&b, "  %-17s judged %d, violated %d\n", g, r.Judged[g], r.Count(g))
	}
	fmt.Fprintf(&b, "  unparseable resourceVersions %d, unresolved writes %d, unlinked leaderships %d",
		r.Unparseable, r.Unresolved, r.Unlinked)
	return b.String()
}

// Check judges the histories against every Guarantee.
func Check(in Input) *Report {
	r := &Report{Judged: map[Guarantee]int{}, Processes: len(in.Histories)}
	checks := make([]*processCheck, len(in.Histories))
	for i, h := range in.Histories {
		checks[i] = newProcessCheck(h, r)
		checks[i].count()
		checks[i].sweepKeys()
	}
	if in.Audit != nil {
		checkFailover(in, checks)
	}
	for _, c := range checks {
		c.checkDecisions() // last: it looks at the reads the other guarantees flagged
	}
	return r
}

// wellFormed reports whether rv is a resourceVersion CompareResourceVersion can compare.
func wellFormed(rv string) bool {
	_, err := resourceversion.CompareResourceVersion(rv, rv)
	return err == nil
}

// compareRV compares two well-formed resourceVersions.
func compareRV(a, b string) int {
	c, _ := resourceversion.CompareResourceVersion(a, b)
	return c
}

// processCheck judges one process's history.
type processCheck struct {
	h      *History
	report *Report
	// flagged holds the indexes of reads that broke a guarantee.
	flagged map[int]bool
}

func newProcessCheck(h *History, r *Report) *processCheck {
	if !slices.IsSortedFunc(h.Events, compareEvents) {
		sorted := *h
		sorted.Events = slices.Clone(h.Events)
		sortEvents(sorted.Events)
		h = &sorted
	}
	return &processCheck{h: h, report: r, flagged: map[int]bool{}}
}

func (c *processCheck) count() {
	r := c.report
	r.Events += len(c.h.Events)
	for i := range c.h.Events {
		e := &c.h.Events[i]
		if (e.RV != "" || e.Kind == KindRead && e.Found) && !wellFormed(e.RV) {
			r.Unparseable++
		}
		switch e.Kind {
		case KindRead:
			r.Reads++
		case KindWrite:
			r.Writes++
		case KindDelete:
			r.Deletes++
		case KindAdmin:
			r.AdminCalls++
		}
	}
}

// violate records a violation by event i, with the events of indexes witnesses marked.
func (c *processCheck) violate(g Guarantee, i int, detail string, witnesses ...int) {
	if c.h.Events[i].Kind == KindRead {
		c.flagged[i] = true
	}
	c.report.Violations = append(c.report.Violations, Violation{
		Guarantee: g, Process: c.h.Process, Event: c.h.Events[i], Detail: detail,
		Excerpt: excerpt(c.h, i, witnesses),
	})
}

// byKey groups the indexes of reads, successful writes and deletes by key. Reads stay in
// Start order; writes and deletes are sorted by End.
func (c *processCheck) byKey() map[Key]*keyEvents {
	keys := map[Key]*keyEvents{}
	get := func(k Key) *keyEvents {
		ke, ok := keys[k]
		if !ok {
			ke = &keyEvents{}
			keys[k] = ke
		}
		return ke
	}
	for i := range c.h.Events {
		e := &c.h.Events[i]
		switch {
		case e.Kind == KindRead:
			get(e.Key).reads = append(get(e.Key).reads, i)
		case e.Kind == KindWrite && e.Succeeded() && e.RV != "":
			get(e.Key).writes = append(get(e.Key).writes, i)
		case e.Kind == KindDelete:
			get(e.Key).deletes = append(get(e.Key).deletes, i)
		}
	}
	byEnd := func(a, b int) int { return cmp.Compare(c.h.Events[a].End, c.h.Events[b].End) }
	for _, ke := range keys {
		slices.SortStableFunc(ke.writes, byEnd)
		slices.SortStableFunc(ke.deletes, byEnd)
		ke.readsByEnd = slices.Clone(ke.reads)
		slices.SortStableFunc(ke.readsByEnd, byEnd)
	}
	return keys
}

type keyEvents struct {
	reads, readsByEnd, writes, deletes []int
}
