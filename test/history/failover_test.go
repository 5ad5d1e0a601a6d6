package history_test

import (
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

// failover is a run with two processes: "old" leads, patches the BrokerCluster to rv 50 (audit
// w-1, applied at 3 ms) and dies; "new" takes the Lease over (audit l-2, received at 10 ms) and
// reads the BrokerCluster with newRead ("" for not found). extra audit lines come after.
func failover(t *testing.T, newRead string, extra ...string) (*history.Report, *builder) {
	t.Helper()
	old := newHistory("operator-0").
		leading("l-1", 0).
		read(1, 1, bcKey, "u1", "49", 1, 2).
		write(1, 1, bcKey, "patch", "49", "u1", "50", 200, 3, 4).audited("w-1")
	next := newHistory("operator-1").
		write(history.WorkerNone, 0, lease, "update", "", "l", "60", 200, 10, 11).audited("l-2").
		leading("", 12).
		read(1, 1, bcKey, "u1", newRead, 13, 14)
	lines := append([]string{
		auditLine("l-1", "ResponseComplete", "create", lease, "", 201, at(0), at(0), ""),
		auditLine("w-1", "ResponseComplete", "patch", bcKey, "status", 200, at(2), at(3), ""),
		auditLine("l-2", "ResponseComplete", "update", lease, "", 200, at(10), at(11), ""),
	}, extra...)
	audit, err := history.ParseAudit(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return history.Check(history.Input{Histories: []*history.History{old.h, next.h}, Audit: audit, OperatorUser: operatorUser}), next
}

func TestFailoverReads(t *testing.T) {
	r, _ := failover(t, "50")
	wantViolations(t, r, nil)
	if r.Judged[history.FailoverReads] != 1 {
		t.Errorf("FailoverReads judged %d reads, want 1", r.Judged[history.FailoverReads])
	}

	r, _ = failover(t, "49")
	wantViolations(t, r, map[history.Guarantee]int{history.FailoverReads: 1})
	if d := r.Violations[0].Detail; !strings.Contains(d, "older than 50") || !strings.Contains(d, "audit w-1, line 2") {
		t.Errorf("detail %q does not name the old leader's write", d)
	}

	r, _ = failover(t, "")
	wantViolations(t, r, map[history.Guarantee]int{history.FailoverReads: 1})

	// Deleted by the garbage collector after the old leader's write: not found is current.
	gc := auditLine("d-1", "ResponseComplete", "delete", bcKey, "", 200, at(5), at(6), "")
	r, _ = failover(t, "", strings.Replace(gc, operatorUser, "system:serviceaccount:kube-system:generic-garbage-collector", 1))
	wantViolations(t, r, nil)
}

func TestFailoverIgnoresWritesAppliedAfterTheLease(t *testing.T) {
	old := newHistory("operator-0").
		write(1, 1, bcKey, "patch", "", "u1", "70", 200, 20, 30).audited("w-late")
	next := newHistory("operator-1").
		leading("l-2", 12).
		read(1, 1, bcKey, "u1", "50", 13, 14)
	audit, err := history.ParseAudit(strings.NewReader(strings.Join([]string{
		auditLine("l-2", "ResponseComplete", "update", lease, "", 200, at(10), at(11), ""),
		auditLine("w-late", "ResponseComplete", "patch", bcKey, "", 200, at(10), at(12), ""),
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	r := history.Check(history.Input{Histories: []*history.History{old.h, next.h}, Audit: audit})
	wantViolations(t, r, nil)
	if r.Judged[history.FailoverReads] != 0 {
		t.Errorf("judged %d reads against a write the apiserver applied after the lease write", r.Judged[history.FailoverReads])
	}
}

func TestFailoverUsesAWriteTheOldLeaderNeverSawAnswered(t *testing.T) {
	// The old leader's history lost the write (it was killed before the answer); the audit log,
	// at level RequestResponse, still holds it and its resourceVersion.
	next := newHistory("operator-1").
		leading("l-2", 12).
		read(1, 1, bcKey, "u1", "49", 13, 14)
	lines := []string{
		auditLine("w-1", "ResponseComplete", "patch", bcKey, "", 200, at(2), at(3), "50"),
		auditLine("w-2", "ResponseComplete", "patch", stsKey, "", 200, at(2), at(3), ""),
		auditLine("l-2", "ResponseComplete", "update", lease, "", 200, at(10), at(11), ""),
	}
	audit, err := history.ParseAudit(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	r := history.Check(history.Input{Histories: []*history.History{next.h}, Audit: audit, OperatorUser: operatorUser})
	wantViolations(t, r, map[history.Guarantee]int{history.FailoverReads: 1})
	if r.Unresolved != 1 {
		t.Errorf("Unresolved = %d, want 1 (the StatefulSet write, whose resourceVersion nothing holds)", r.Unresolved)
	}
	r = history.Check(history.Input{Histories: []*history.History{next.h}, Audit: audit})
	wantViolations(t, r, nil) // without OperatorUser an unrecorded write is nobody's
}

func TestAStaleReadAfterFailoverMakesTheDecisionStale(t *testing.T) {
	_, next := failover(t, "49")
	next.admin(1, 1, bcKey, "decommission", "3", 15, 16)
	old := newHistory("operator-0").
		write(1, 1, bcKey, "patch", "49", "u1", "50", 200, 3, 4).audited("w-1")
	audit, err := history.ParseAudit(strings.NewReader(strings.Join([]string{
		auditLine("w-1", "ResponseComplete", "patch", bcKey, "status", 200, at(2), at(3), ""),
		auditLine("l-2", "ResponseComplete", "update", lease, "", 200, at(10), at(11), ""),
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	r := history.Check(history.Input{Histories: []*history.History{old.h, next.h}, Audit: audit})
	wantViolations(t, r, map[history.Guarantee]int{history.FailoverReads: 1, history.FreshDecisions: 1})
}

func TestALeadershipMissingFromTheAuditLogIsCounted(t *testing.T) {
	next := newHistory("operator-1").leading("l-9", 12).read(1, 1, bcKey, "u1", "49", 13, 14)
	r := history.Check(history.Input{Histories: []*history.History{next.h}, Audit: &history.Audit{}})
	if r.Unlinked != 1 || r.Judged[history.FailoverReads] != 0 {
		t.Errorf("Unlinked = %d, judged %d; want 1, 0", r.Unlinked, r.Judged[history.FailoverReads])
	}
}

// A failover read that found nothing is excused by a delete only when the delete is known
// before the read: here the garbage collector deletes what the old leader wrote (audit d-1, at
// 15 ms), after the new leader's Lease write; the new leader renews its Lease (audit r-1,
// received at 20 ms) at 20..21 ns on its clock. A read after the renewal ended is excused; one
// before it, with the same audit log, is not: the delete may have come after it.
func TestAFailoverReadIsExcusedOnlyByADeleteBeforeIt(t *testing.T) {
	gc := "system:serviceaccount:kube-system:generic-garbage-collector"
	lines := []string{
		auditLine("w-1", "ResponseComplete", "patch", bcKey, "status", 200, at(2), at(3), ""),
		auditLine("l-2", "ResponseComplete", "update", lease, "", 200, at(10), at(11), ""),
		strings.Replace(auditLine("d-1", "ResponseComplete", "delete", bcKey, "", 200, at(15), at(16), ""), operatorUser, gc, 1),
		auditLine("r-1", "ResponseComplete", "update", lease, "", 200, at(20), at(21), ""),
	}
	audit, err := history.ParseAudit(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	// run checks the new leader reading bcKey at start, with more of its events added by more.
	run := func(start int64, more func(*builder)) *history.Report {
		old := newHistory("operator-0").write(1, 1, bcKey, "patch", "49", "u1", "50", 200, 3, 4).audited("w-1")
		next := newHistory("operator-1").
			write(history.WorkerNone, 0, lease, "update", "", "l", "60", 200, 10, 11).audited("l-2").
			leading("", 12).
			read(1, 1, bcKey, "", "", start, start+1)
		more(next)
		return history.Check(history.Input{Histories: []*history.History{old.h, next.h}, Audit: audit, OperatorUser: operatorUser})
	}
	renewed := func(b *builder) {
		b.write(history.WorkerNone, 0, lease, "update", "", "l", "61", 200, 20, 21).audited("r-1")
	}
	wantViolations(t, run(30, renewed), nil)
	r := run(18, renewed)
	wantViolations(t, r, map[history.Guarantee]int{history.FailoverReads: 1})
	if d := r.Violations[len(r.Violations)-1:]; len(d) == 1 && !strings.Contains(d[0].Detail, "no delete of it is known before the read") {
		t.Errorf("detail %q does not say the delete is not known before the read", d[0].Detail)
	}
	// Seen by the new leader before it read, the delete excuses the read; seen after, not.
	for seen, want := range map[int64]int{16: 0, 20: 1} {
		r := run(18, func(b *builder) { b.gone(history.DeleteObserved, bcKey, "u1", "", seen, seen) })
		if got := r.Count(history.FailoverReads); got != want {
			t.Errorf("delete seen at %d ns, read at 18 ns: %d failover violations, want %d", seen, got, want)
		}
	}
}
