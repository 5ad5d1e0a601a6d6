package history

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Guarantee names a property the checker judges.
type Guarantee string

const (
	// ReadYourWrites: a read that started after a write of the same process ended sees that
	// write or a newer version. A read that breaks it is a stale read (StaleReads).
	ReadYourWrites Guarantee = "read-your-writes"
	// MonotonicReads: a read never returns an older version than a read of the same key that
	// ended before it started, in the same process (whichever workers made them).
	MonotonicReads Guarantee = "monotonic-reads"
	// NoResurrection: once a process made or observed the delete of a UID, it reads that UID no
	// more, whether the read gives the UID or an event gives it to the revision read.
	NoResurrection Guarantee = "no-resurrection"
	// DeleteFloor: once a process knew of a delete of a key, it finds the key at no version of
	// the deleted object it knew, nor an older one.
	DeleteFloor Guarantee = "delete-floor"
	// NoFuture: no read returns a version no write had reached, and no write is answered with a
	// version older than one read of its key before it started.
	NoFuture Guarantee = "no-future"
	// RealVersions: a read returns a version its key had: no other object's revision, none
	// its key skipped, and, when every write is recorded, one a write of the key had produced.
	RealVersions Guarantee = "real-versions"
	// RealUIDs: a read's UID is its key's, the one its revision had, and created no later
	// than the version read.
	RealUIDs Guarantee = "real-uids"
	// FailoverReads: a new leader reads nothing older than the writes of other processes the
	// apiserver had applied before it received the Lease write that made it leader.
	FailoverReads Guarantee = "failover-reads"
	// FreshDecisions: an admin call rests on a judged read of its object in its reconcile, and
	// no read of that reconcile before it breaks a guarantee.
	FreshDecisions Guarantee = "fresh-decisions"
	// OneDecommission: no broker is decommissioned twice, by any process, unless a
	// recommission of it lies between.
	OneDecommission Guarantee = "one-decommission"
	// OneUnavailable: at most one broker of a cluster is in maintenance or restarting at any
	// time, across processes.
	OneUnavailable Guarantee = "one-unavailable"
	// LeaderDecides: no process makes an admin call after another process's leadership began.
	LeaderDecides Guarantee = "leader-decides"
)

// Guarantees lists every Guarantee in report order.
var Guarantees = []Guarantee{ReadYourWrites, MonotonicReads, NoResurrection, DeleteFloor, NoFuture, RealVersions, RealUIDs,
	FailoverReads, FreshDecisions, OneDecommission, OneUnavailable, LeaderDecides}

// ReadGuarantees are the guarantees that judge reads: a read one of them constrained is judged.
var ReadGuarantees = []Guarantee{ReadYourWrites, MonotonicReads, NoResurrection, DeleteFloor, NoFuture, RealVersions, RealUIDs, FailoverReads}

// Gap names a kind of event the checker could not use; a run with a gap fails (Report.Err)
// unless Input.Expect says why it expects it.
type Gap string

const (
	// GapUnparseable: events whose resourceVersion CompareResourceVersion cannot read.
	GapUnparseable Gap = "unparseable"
	// GapUnattributed: reads made in no reconcile (Reconcile 0).
	GapUnattributed Gap = "unattributed"
	// GapUnlinked: leadership events whose Lease write is not in the audit log.
	GapUnlinked Gap = "unlinked"
	// GapUnreadable: lines of a trace its reader could not parse (History.Unreadable).
	GapUnreadable Gap = "unreadable"
)

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
	// AllWrites says that every write the apiserver applied while the histories were recorded
	// is in Histories (with its answer) or in Audit (with its resourceVersion, level
	// RequestResponse). NoFuture then also judges every read against the highest
	// resourceVersion any write had reached, and RealVersions each read against the writes of
	// its key.
	AllWrites bool
	// Untraced names the admin calls the histories' tracer does not record
	// ("maintenance-off"); a guarantee that needs one is not judged (Report.NotJudged).
	Untraced []string
	// Expect permits gaps above zero, each with the reason the caller expects it.
	Expect map[Gap]string
	// Outages are spans in which a broker was unavailable that no admin call shows (Outage);
	// OneUnavailable judges them as maintenance.
	Outages []Outage
}

// Violation is one broken guarantee.
type Violation struct {
	Guarantee Guarantee
	Process   string
	// Event is the offending read, write or admin call.
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
	// JudgedReads counts the reads at least one of ReadGuarantees but RealVersions and RealUIDs
	// constrained.
	JudgedReads int
	// NotJudged says, per guarantee, why the input left it unjudged.
	NotJudged map[Guarantee]string
	// Unparseable counts events whose resourceVersion CompareResourceVersion cannot read;
	// they are neither judged nor used as evidence.
	Unparseable int
	// Unresolved counts applied writes of other processes whose resourceVersion neither their
	// history nor the audit log holds; FailoverReads cannot use them.
	Unresolved int
	// Unlinked counts leadership events whose Lease write is not in the audit log.
	Unlinked int
	// Unattributed counts reads made in no reconcile.
	Unattributed int
	// Unreadable sums the histories' Unreadable: trace lines their readers could not parse.
	Unreadable int
	Violations []Violation
	// rywJudged counts by resource the reads ReadYourWrites judged (ReadsOf).
	rywJudged map[string]int
	// Failures name why the input is not evidence enough for a green run (Err).
	Failures []string
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

// Err names every failure of the evidence (Failures), or is nil. A run is green only when Err
// is nil and Violations is empty.
func (r *Report) Err() error {
	if len(r.Failures) == 0 {
		return nil
	}
	return errors.New("history check: " + strings.Join(r.Failures, "; "))
}

// Summary is the report in a few lines, for a test log or a document.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d events of %d processes: %d reads (%d judged), %d writes, %d deletes, %d admin calls; %d violations\n",
		r.Events, r.Processes, r.Reads, r.JudgedReads, r.Writes, r.Deletes, r.AdminCalls, len(r.Violations))
	for _, g := range Guarantees {
		fmt.Fprintf(&b, "  %-20s judged %d, violated %d", g, r.Judged[g], r.Count(g))
		if why, ok := r.NotJudged[g]; ok {
			fmt.Fprintf(&b, " (not judged: %s)", why)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  unparseable resourceVersions %d, unresolved writes %d, unlinked leaderships %d, unattributed reads %d, unreadable trace lines %d",
		r.Unparseable, r.Unresolved, r.Unlinked, r.Unattributed, r.Unreadable)
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "\n  FAILED: %s", f)
	}
	return b.String()
}

// Check judges the histories against every Guarantee, and the input against what a green
// run needs (Report.Err).
func Check(in Input) *Report {
	r := &Report{Judged: map[Guarantee]int{}, NotJudged: map[Guarantee]string{}, rywJudged: map[string]int{}, Processes: len(in.Histories)}
	checks := make([]*processCheck, len(in.Histories))
	for i, h := range in.Histories {
		checks[i] = newProcessCheck(h, r)
		checks[i].count()
	}
	tl := newTimeline(checks)
	v := newVersions(in, tl)
	for _, c := range checks {
		c.sweepKeys(v)
	}
	checkFuture(in, tl)
	checkReal(in, tl, v)
	if in.Audit != nil {
		checkFailover(in, checks)
	} else {
		r.NotJudged[FailoverReads] = "no audit log"
	}
	for _, c := range checks {
		c.checkDecisions() // after every read guarantee: it looks at the reads they judged and flagged
	}
	checkSafety(in, tl)
	r.judgeEvidence(in, checks)
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
	// flagged holds the indexes of reads that broke a guarantee; judged those a read
	// guarantee constrained.
	flagged, judged map[int]bool
}

func newProcessCheck(h *History, r *Report) *processCheck {
	if !slices.IsSortedFunc(h.Events, compareEvents) {
		sorted := *h
		sorted.Events = slices.Clone(h.Events)
		sortEvents(sorted.Events)
		h = &sorted
	}
	return &processCheck{h: h, report: r, flagged: map[int]bool{}, judged: map[int]bool{}}
}

func (c *processCheck) count() {
	r := c.report
	r.Events += len(c.h.Events)
	r.Unreadable += c.h.Unreadable
	for i := range c.h.Events {
		e := &c.h.Events[i]
		if (e.RV != "" || e.Kind == KindRead && e.Found) && !wellFormed(e.RV) {
			r.Unparseable++
		}
		switch e.Kind {
		case KindRead:
			r.Reads++
			if e.Reconcile == 0 {
				r.Unattributed++
			}
		case KindWrite:
			r.Writes++
		case KindDelete:
			r.Deletes++
		case KindAdmin:
			r.AdminCalls++
		}
	}
}

// judge counts event i as judged by g. A read that only RealVersions or RealUIDs judged is
// not judged for freshness: FreshDecisions still wants a decision's read judged by one of the
// guarantees that say how old it may be.
func (c *processCheck) judge(g Guarantee, i int) {
	c.report.Judged[g]++
	if c.h.Events[i].Kind == KindRead && g != RealVersions && g != RealUIDs {
		c.judged[i] = true
	}
	if g == ReadYourWrites {
		c.report.rywJudged[c.h.Events[i].Key.Resource]++
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
