package history_test

import (
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

// wantViolations fails unless r holds exactly want violations of each guarantee named.
func wantViolations(t *testing.T, r *history.Report, want map[history.Guarantee]int) {
	t.Helper()
	for _, g := range history.Guarantees {
		if got := r.Count(g); got != want[g] {
			t.Errorf("%s: %d violations, want %d", g, got, want[g])
		}
	}
	if t.Failed() {
		for _, v := range r.Violations {
			t.Log(v)
		}
	}
}

func TestReadYourWrites(t *testing.T) {
	tests := []struct {
		name string
		h    *builder
		want int
	}{
		{"read after the write sees it", newHistory("p").
			write(1, 1, bcKey, "patch", "", "u1", "11", 200, 10, 20).
			read(1, 2, bcKey, "u1", "11", 21, 22), 0},
		{"read after the write sees a newer version", newHistory("p").
			write(1, 1, bcKey, "patch", "", "u1", "11", 200, 10, 20).
			read(2, 2, bcKey, "u1", "15", 21, 22), 0},
		{"planted: read after the write sees the version before it", newHistory("p").
			read(1, 1, bcKey, "u1", "10", 1, 2).
			write(1, 1, bcKey, "patch", "10", "u1", "11", 200, 10, 20).
			read(2, 2, bcKey, "u1", "10", 21, 22), 1},
		{"a read started before the write ended may miss it", newHistory("p").
			write(1, 1, bcKey, "patch", "", "u1", "11", 200, 10, 20).
			read(2, 2, bcKey, "u1", "10", 20, 22), 0},
		{"planted: not found after the process created it", newHistory("p").
			write(1, 1, stsKey, "create", "", "u1", "30", 201, 10, 20).
			read(1, 2, stsKey, "", "", 21, 22), 1},
		{"not found after the process deleted it", newHistory("p").
			write(1, 1, stsKey, "create", "", "u1", "30", 201, 10, 20).
			write(1, 2, stsKey, "delete", "", "", "", 200, 30, 40).
			gone(history.DeleteMade, stsKey, "u1", "", 30, 40).
			read(1, 3, stsKey, "", "", 41, 42), 0},
		{"a conflict imposes nothing", newHistory("p").
			write(1, 1, bcKey, "patch", "10", "", "", 409, 10, 20).
			read(1, 2, bcKey, "u1", "10", 21, 22), 0},
		{"a write that got no answer imposes nothing", newHistory("p").
			write(1, 1, bcKey, "patch", "", "", "", 0, 10, 20).
			read(1, 2, bcKey, "u1", "10", 21, 22), 0},
		{"a re-create with a new UID is newer", newHistory("p").
			write(1, 1, stsKey, "create", "", "u1", "30", 201, 10, 20).
			gone(history.DeleteObserved, stsKey, "u1", "35", 25, 25).
			read(1, 2, stsKey, "u2", "40", 41, 42), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantViolations(t, check(tt.h), map[history.Guarantee]int{history.ReadYourWrites: tt.want})
		})
	}
}

func TestAReadYourWritesViolationShowsTheEventsAroundIt(t *testing.T) {
	h := newHistory("operator-0").
		read(1, 1, bcKey, "u1", "10", 1, 2).
		read(1, 1, stsKey, "s1", "5", 2, 3).
		write(1, 1, bcKey, "patch", "10", "u1", "11", 200, 10, 20).audited("a-1").
		read(2, 2, bcKey, "u1", "10", 21, 22).
		read(2, 2, bcKey, "u1", "11", 30, 31)
	r := check(h)
	if len(r.Violations) != 1 {
		t.Fatalf("violations: %v, want 1", r.Violations)
	}
	v := r.Violations[0]
	if v.Process != "operator-0" || v.Event.Start != 21 || v.Event.RV != "10" {
		t.Errorf("violation by %s at %d rv %s, want operator-0's read at 21 rv 10", v.Process, v.Event.Start, v.Event.RV)
	}
	lines := strings.Split(v.Excerpt, "\n")
	want := []string{
		"  1ns..2ns w1 r1 read    brokerclusters ns/bc-1 uid=u1 rv=10",
		`* 10ns..20ns w1 r1 write   patch brokerclusters ns/bc-1 precondition="10" -> uid=u1 rv=11 code=200 audit=a-1`,
		"> 21ns..22ns w2 r2 read    brokerclusters ns/bc-1 uid=u1 rv=10",
		"  30ns..31ns w2 r2 read    brokerclusters ns/bc-1 uid=u1 rv=11",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("excerpt:\n%s\nwant:\n%s", v.Excerpt, strings.Join(want, "\n"))
	}
	if !strings.Contains(v.Detail, "older than 11") {
		t.Errorf("detail %q does not name the write's resourceVersion", v.Detail)
	}
}

func TestMonotonicReads(t *testing.T) {
	tests := []struct {
		name   string
		h      *builder
		want   int
		detail string
	}{
		{"planted: one worker reads back in time", newHistory("p").
			read(1, 1, bcKey, "u1", "12", 1, 2).
			read(1, 2, bcKey, "u1", "11", 3, 4), 1, "the same worker"},
		{"planted: a second worker reads older than the first had", newHistory("p").
			read(1, 1, bcKey, "u1", "12", 1, 2).
			read(2, 2, bcKey, "u1", "11", 3, 4), 1, "worker 1 read before"},
		{"overlapping reads of two workers may disagree", newHistory("p").
			read(1, 1, bcKey, "u1", "12", 1, 5).
			read(2, 2, bcKey, "u1", "11", 3, 4), 0, ""},
		{"other keys do not constrain each other", newHistory("p").
			read(1, 1, bcKey, "u1", "12", 1, 2).
			read(1, 1, stsKey, "s1", "5", 3, 4), 0, ""},
		{"planted: not found after finding it, with no delete known", newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			read(1, 2, stsKey, "", "", 3, 4), 1, "was deleted by no delete"},
		{"not found while the process's own delete is being answered", newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			write(1, 2, stsKey, "delete", "", "", "", 200, 3, 10).
			gone(history.DeleteMade, stsKey, "s1", "", 3, 10).
			read(2, 3, stsKey, "", "", 8, 9), 0, ""},
		{"not found after an observed delete", newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			gone(history.DeleteObserved, stsKey, "s1", "7", 2, 2).
			read(1, 2, stsKey, "", "", 3, 4), 0, ""},
		{"not found after the object was found, then seen deleted before its next read", newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			gone(history.DeleteObserved, stsKey, "s1", "", 3, 3).
			read(2, 2, stsKey, "", "", 4, 5).
			read(1, 3, stsKey, "s2", "9", 6, 7), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := check(tt.h)
			wantViolations(t, r, map[history.Guarantee]int{history.MonotonicReads: tt.want})
			if tt.want > 0 && len(r.Violations) > 0 && !strings.Contains(r.Violations[0].Detail, tt.detail) {
				t.Errorf("detail %q, want it to say %q", r.Violations[0].Detail, tt.detail)
			}
		})
	}
}

func TestNoResurrection(t *testing.T) {
	tests := []struct {
		name string
		h    *builder
		want map[history.Guarantee]int
	}{
		{"planted: the deleted UID read again, even at a higher version", newHistory("p").
			gone(history.DeleteObserved, stsKey, "s1", "7", 2, 2).
			read(1, 1, stsKey, "s1", "8", 3, 4), map[history.Guarantee]int{history.NoResurrection: 1}},
		{"planted: the UID the process deleted itself read again", newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			write(1, 1, stsKey, "delete", "", "", "", 200, 3, 4).
			gone(history.DeleteMade, stsKey, "s1", "", 3, 4).
			read(1, 2, stsKey, "s1", "5", 5, 6), map[history.Guarantee]int{history.NoResurrection: 1}},
		{"a re-created object has a new UID", newHistory("p").
			gone(history.DeleteObserved, stsKey, "s1", "7", 2, 2).
			read(1, 1, stsKey, "s2", "9", 3, 4), nil},
		{"a read that started before the delete was known may return the UID", newHistory("p").
			gone(history.DeleteObserved, stsKey, "s1", "7", 3, 3).
			read(1, 1, stsKey, "s1", "6", 2, 4), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantViolations(t, check(tt.h), tt.want) })
	}
}

func TestFreshDecisions(t *testing.T) {
	tests := []struct {
		name string
		h    *builder
		want map[history.Guarantee]int
	}{
		{"the call follows fresh reads in its reconcile", newHistory("p").
			write(1, 1, bcKey, "patch", "", "u1", "11", 200, 1, 2).
			read(1, 2, bcKey, "u1", "11", 3, 4).
			read(1, 2, stsKey, "s1", "5", 4, 5).
			admin(1, 2, bcKey, "decommission", "2", 6, 9), nil},
		{"planted: the call follows a stale read", newHistory("p").
			write(1, 1, bcKey, "patch", "", "u1", "11", 200, 1, 2).
			read(1, 2, bcKey, "u1", "10", 3, 4).
			admin(1, 2, bcKey, "decommission", "2", 6, 9),
			map[history.Guarantee]int{history.ReadYourWrites: 1, history.FreshDecisions: 1}},
		{"planted: the call's reconcile read nothing before it", newHistory("p").
			read(1, 1, bcKey, "u1", "11", 3, 4).
			admin(1, 2, bcKey, "decommission", "2", 6, 9),
			map[history.Guarantee]int{history.FreshDecisions: 1}},
		{"planted: the read ended after the call started", newHistory("p").
			admin(1, 2, bcKey, "decommission", "2", 6, 9).
			read(1, 2, bcKey, "u1", "11", 5, 7),
			map[history.Guarantee]int{history.FreshDecisions: 1}},
		{"planted: the read found nothing", newHistory("p").
			read(1, 2, bcKey, "", "", 3, 4).
			admin(1, 2, bcKey, "decommission", "2", 6, 9),
			map[history.Guarantee]int{history.FreshDecisions: 1}},
		{"planted: a call outside any reconcile", newHistory("p").
			read(1, 2, bcKey, "u1", "11", 3, 4).
			admin(1, 0, bcKey, "maintenance-on", "1", 6, 9),
			map[history.Guarantee]int{history.FreshDecisions: 1}},
		{"planted: the reconcile's other read was stale", newHistory("p").
			write(1, 1, stsKey, "patch", "", "s1", "20", 200, 1, 2).
			read(1, 2, bcKey, "u1", "11", 3, 4).
			read(1, 2, stsKey, "s1", "19", 4, 5).
			admin(1, 2, bcKey, "decommission", "2", 6, 9),
			map[history.Guarantee]int{history.ReadYourWrites: 1, history.FreshDecisions: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantViolations(t, check(tt.h), tt.want) })
	}
}

func TestADecisionExcerptShowsItsReconcile(t *testing.T) {
	h := newHistory("p").
		read(1, 7, bcKey, "u1", "11", 3, 4).
		read(2, 8, bcKey, "u1", "11", 3, 4).
		admin(1, 6, bcKey, "decommission", "2", 6, 9).
		read(1, 6, stsKey, "s1", "5", 10, 11)
	r := check(h)
	wantViolations(t, r, map[history.Guarantee]int{history.FreshDecisions: 1})
	want := "> 6ns..9ns w1 r6 admin   decommission broker=2 for brokerclusters ns/bc-1\n  10ns..11ns w1 r6 read    statefulsets ns/bc-1 uid=s1 rv=5"
	if got := r.Violations[0].Excerpt; got != want {
		t.Errorf("excerpt:\n%s\nwant:\n%s", got, want)
	}
}

func TestUnparseableResourceVersionsAreCountedNotJudged(t *testing.T) {
	h := newHistory("p").
		write(1, 1, bcKey, "patch", "", "u1", "x11", 200, 1, 2).
		read(1, 2, bcKey, "u1", "10", 3, 4).
		read(1, 3, bcKey, "u1", "011", 5, 6).
		read(1, 4, bcKey, "u1", "9", 7, 8)
	r := check(h)
	// The write and the read of "011" are no evidence; the last read is still older than the
	// one of "10".
	wantViolations(t, r, map[history.Guarantee]int{history.MonotonicReads: 1})
	if r.Unparseable != 2 {
		t.Errorf("Unparseable = %d, want 2", r.Unparseable)
	}
	if r.Judged[history.ReadYourWrites] != 0 {
		t.Errorf("ReadYourWrites judged %d reads against a write with no usable resourceVersion", r.Judged[history.ReadYourWrites])
	}
}

func TestCheckSortsAHistoryBuiltOutOfOrder(t *testing.T) {
	h := newHistory("p").
		read(2, 2, bcKey, "u1", "10", 21, 22).
		write(1, 1, bcKey, "patch", "", "u1", "11", 200, 10, 20)
	before := h.h.Events[0]
	wantViolations(t, check(h), map[history.Guarantee]int{history.ReadYourWrites: 1})
	if h.h.Events[0] != before {
		t.Error("Check reordered its input")
	}
}

func TestSummaryNamesEveryGuarantee(t *testing.T) {
	r := check(newHistory("p").read(1, 1, bcKey, "u1", "12", 1, 2).read(1, 2, bcKey, "u1", "11", 3, 4))
	s := r.Summary()
	for _, g := range history.Guarantees {
		if !strings.Contains(s, string(g)) {
			t.Errorf("summary does not name %s:\n%s", g, s)
		}
	}
	if !strings.Contains(s, "monotonic-reads      judged 1, violated 1") || !strings.Contains(s, "2 reads (1 judged)") ||
		!strings.Contains(s, "failover-reads       judged 0, violated 0 (not judged: no audit log)") {
		t.Errorf("summary:\n%s", s)
	}
}
