package history_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

type ruleCase struct {
	name string
	in   history.Input
	hs   []*builder
	want map[history.Guarantee]int
}

func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) { wantViolations(t, checkWith(tt.in, tt.hs...), tt.want) })
	}
}

func one(b *builder) []*builder { return []*builder{b} }

// Each planted case below passed the checker before these rules; each clean twin passes now.

func TestDecisionsRestOnAJudgedRead(t *testing.T) {
	runRules(t, []ruleCase{
		{"planted: the only read of the object has a resourceVersion that does not parse", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "x7", 3, 4).
			admin(1, 1, bcKey, "decommission", "2", 6, 9)),
			map[history.Guarantee]int{history.FreshDecisions: 1}},
		{"planted: the only read of the object had nothing to judge it by", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "11", 3, 4).
			admin(1, 1, bcKey, "decommission", "2", 6, 9)),
			map[history.Guarantee]int{history.FreshDecisions: 1}},
		{"a read judged fresh against the process's own write", history.Input{}, one(newHistory("p").
			fresh(1, 1, bcKey, "11", "decommission", "2", 1)), nil},
		{"a read judged against an earlier read", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "11", 1, 2).
			read(1, 2, bcKey, "u1", "11", 3, 4).
			admin(1, 2, bcKey, "decommission", "2", 6, 9)), nil},
	})
	r := check(newHistory("p").read(1, 1, bcKey, "u1", "11", 3, 4).admin(1, 1, bcKey, "decommission", "2", 6, 9))
	if d := r.Violations[0].Detail; !strings.Contains(d, "rests on no judged read") {
		t.Errorf("detail %q does not name the cause", d)
	}
}

func TestNoFuture(t *testing.T) {
	all := history.Input{AllWrites: true}
	runRules(t, []ruleCase{
		{"planted: a read above anything any process wrote, then a decommission on it", all, one(newHistory("p").
			write(1, 1, bcKey, "patch", "", "u1", "11", 200, 1, 2).
			read(1, 2, bcKey, "u1", "99", 3, 4).
			admin(1, 2, bcKey, "decommission", "2", 6, 9)),
			map[history.Guarantee]int{history.NoFuture: 1, history.FreshDecisions: 1}},
		{"planted: a read above anything written before it ended, by any process", all, []*builder{
			newHistory("p").read(1, 1, bcKey, "u1", "30", 3, 4),
			newHistory("q").write(1, 1, bcKey, "patch", "", "u1", "30", 200, 5, 6)},
			map[history.Guarantee]int{history.NoFuture: 1}},
		{"a read of another process's newer write", all, []*builder{
			newHistory("p").read(1, 1, bcKey, "u1", "30", 7, 8),
			newHistory("q").write(1, 1, bcKey, "patch", "", "u1", "30", 200, 5, 6)}, nil},
		{"a read of a write in flight when it ended", all, []*builder{
			newHistory("p").read(1, 1, bcKey, "u1", "30", 3, 8),
			newHistory("q").write(1, 1, bcKey, "patch", "", "u1", "30", 200, 5, 9)}, nil},
		{"planted: a write answered with a lower version than the read before it", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "20", 1, 2).
			write(1, 1, bcKey, "patch", "20", "u1", "15", 200, 3, 4)),
			map[history.Guarantee]int{history.NoFuture: 1}},
		{"planted: another process's write answered lower than the read before it", history.Input{}, []*builder{
			newHistory("p").read(1, 1, bcKey, "u1", "20", 1, 2),
			newHistory("q").write(1, 1, bcKey, "patch", "", "u1", "15", 200, 3, 4)},
			map[history.Guarantee]int{history.NoFuture: 1}},
		{"an old read before one's own write", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "10", 1, 2).
			write(1, 1, bcKey, "patch", "10", "u1", "11", 200, 3, 4)), nil},
		{"a no-op write answers the version read", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "20", 1, 2).
			write(1, 1, bcKey, "patch", "", "u1", "20", 200, 3, 4)), nil},
		{"a write that overlapped the read may be answered lower", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "20", 1, 5).
			write(2, 2, bcKey, "patch", "", "u1", "15", 200, 3, 4)), nil},
	})
	// The audit log is evidence too: a version it shows was reached.
	audit, err := history.ParseAudit(strings.NewReader(auditLine("a-1", "ResponseComplete", "patch", bcKey, "", 200, at(1), at(2), "99") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := checkWith(history.Input{AllWrites: true, Audit: audit}, newHistory("p").read(1, 1, bcKey, "u-bc-1", "99", 3, 4))
	wantViolations(t, r, nil)
	if r.Judged[history.NoFuture] != 1 {
		t.Errorf("NoFuture judged %d reads, want 1", r.Judged[history.NoFuture])
	}
}

func TestADeleteIsAFloor(t *testing.T) {
	runRules(t, []ruleCase{
		{"planted: a read older than a delete the process had observed", history.Input{}, one(newHistory("p").
			gone(history.DeleteObserved, stsKey, "s1", "40", 1, 1).
			read(1, 1, stsKey, "s0", "30", 3, 4)),
			map[history.Guarantee]int{history.DeleteFloor: 1}},
		{"a re-created object read after the delete", history.Input{}, one(newHistory("p").
			gone(history.DeleteObserved, stsKey, "s1", "40", 1, 1).
			read(1, 1, stsKey, "s2", "45", 3, 4)), nil},
		{"not found after the delete", history.Input{}, one(newHistory("p").
			gone(history.DeleteObserved, stsKey, "s1", "40", 1, 1).
			read(1, 1, stsKey, "", "", 3, 4)), nil},
		{"planted: a delete carried by a stale relist covers no newer own write", history.Input{}, one(newHistory("p").
			write(1, 1, stsKey, "update", "", "s1", "50", 200, 1, 2).
			gone(history.DeleteObserved, stsKey, "s1", "40", 3, 3).
			read(1, 2, stsKey, "", "", 5, 6)),
			map[history.Guarantee]int{history.ReadYourWrites: 1}},
		{"a delete newer than the own write covers it", history.Input{}, one(newHistory("p").
			write(1, 1, stsKey, "update", "", "s1", "50", 200, 1, 2).
			gone(history.DeleteObserved, stsKey, "s1", "55", 3, 3).
			read(1, 2, stsKey, "", "", 5, 6)), nil},
	})
}

// calls is a history of one admin call per reconcile, each a fresh decision on bcKey (fresh),
// 10 ns apart: "decommission 2" calls decommission for broker 2; "decommission 2 !500" is one
// that failed with error 500.
func calls(process string, cs ...string) *builder {
	b := newHistory(process)
	for i, c := range cs {
		f := strings.Fields(c)
		b.fresh(1, uint64(i+1), bcKey, strconv.Itoa(11+i), f[0], f[1], int64(10*(i+1)))
		if len(f) > 2 {
			b.failed(strings.TrimPrefix(f[2], "!"))
		}
	}
	return b
}

func TestNoBrokerDecommissionedTwice(t *testing.T) {
	none := history.Input{}
	runRules(t, []ruleCase{
		{"planted: one process decommissions a broker twice", none, one(calls("p", "decommission 2", "decommission 2")),
			map[history.Guarantee]int{history.OneDecommission: 1}},
		{"planted: another process decommissions it again", none, []*builder{calls("p", "decommission 2"), calls("q", "recommission 1", "decommission 2")},
			map[history.Guarantee]int{history.OneDecommission: 1}},
		{"a recommission between two decommissions", none, one(calls("p", "decommission 2", "recommission 2", "decommission 2")), nil},
		{"a retry after a decommission that failed", none, one(calls("p", "decommission 2 !500", "decommission 2")), nil},
		{"two brokers, one decommission each", none, one(calls("p", "decommission 2", "decommission 1")), nil},
	})
}

func TestOneBrokerUnavailable(t *testing.T) {
	none := history.Input{}
	runRules(t, []ruleCase{
		{"planted: two brokers in maintenance at once", none, one(calls("p", "maintenance-on 1", "maintenance-on 2")),
			map[history.Guarantee]int{history.OneUnavailable: 1}},
		{"planted: a pod deleted while another broker is in maintenance, by another process", none,
			[]*builder{calls("p", "maintenance-on 1"), calls("q", "recommission 9", "delete-pod 2")},
			map[history.Guarantee]int{history.OneUnavailable: 1}},
		{"one restart after the other", none, one(calls("p", "maintenance-on 1", "delete-pod 1", "maintenance-off 1", "maintenance-on 2")), nil},
		{"a maintenance-on the brokers refused leaves none in maintenance", none, one(calls("p", "maintenance-on 1 !503", "maintenance-on 2")), nil},
		{"two clusters restart one broker each", none, one(newHistory("p").
			fresh(1, 1, bcKey, "11", "maintenance-on", "1", 10).
			fresh(1, 2, history.Key{Resource: "brokerclusters", Namespace: "ns", Name: "bc-2"}, "12", "maintenance-on", "2", 20)), nil},
	})
	untraced := history.Input{Untraced: []string{history.CallMaintenanceOff}}
	r := checkWith(untraced, calls("p", "maintenance-on 1", "maintenance-on 2"))
	wantViolations(t, r, nil)
	if why := r.NotJudged[history.OneUnavailable]; !strings.Contains(why, "maintenance-off") || r.Judged[history.OneUnavailable] != 0 {
		t.Errorf("without maintenance-off traced: judged %d, not judged %q", r.Judged[history.OneUnavailable], why)
	}
}

func TestOnlyTheLeaderDecides(t *testing.T) {
	runRules(t, []ruleCase{
		{"planted: a deposed leader decommissions the broker the new leader does, on fresh reads", history.Input{}, []*builder{
			newHistory("old").leading("l-1", 0).fresh(1, 1, bcKey, "11", "decommission", "2", 30),
			newHistory("new").leading("l-2", 20).fresh(1, 1, bcKey, "12", "decommission", "2", 40)},
			map[history.Guarantee]int{history.LeaderDecides: 1, history.OneDecommission: 1}},
		{"a clean failover", history.Input{}, []*builder{
			newHistory("old").leading("l-1", 0).fresh(1, 1, bcKey, "11", "decommission", "2", 10),
			newHistory("new").leading("l-2", 20).fresh(1, 1, bcKey, "12", "recommission", "2", 30).
				fresh(1, 2, bcKey, "13", "decommission", "2", 40)}, nil},
	})
	r := check(newHistory("p").fresh(1, 1, bcKey, "11", "decommission", "2", 10))
	if r.NotJudged[history.LeaderDecides] == "" {
		t.Error("LeaderDecides judged a run with no leadership events")
	}
}

func TestNoGreenRunWithoutEvidence(t *testing.T) {
	clean := func() *builder { return newHistory("p").fresh(1, 1, bcKey, "11", "decommission", "2", 10) }
	if r := check(clean()); r.Err() != nil || len(r.Violations) > 0 {
		t.Fatalf("a clean history: %v\n%s", r.Err(), r.Summary())
	}
	unreadable := clean()
	unreadable.h.Unreadable = 2
	stale := newHistory("p").write(1, 1, bcKey, "patch", "", "u1", "11", 200, 1, 2)
	staleToo := newHistory("p").read(1, 2, bcKey, "u1", "10", 3, 4)
	for _, tt := range []struct {
		name, want string
		in         history.Input
		hs         []*builder
	}{
		{"every read unparseable", "judged none of its 2 reads", history.Input{}, one(newHistory("p").
			read(1, 1, bcKey, "u1", "x1", 1, 2).read(1, 2, bcKey, "u1", "x2", 3, 4))},
		{"nothing judged at all", "no read was judged", history.Input{}, one(newHistory("p").write(1, 1, bcKey, "patch", "", "u1", "11", 200, 1, 2))},
		{"unparseable resourceVersions", "1 events whose resourceVersion does not parse", history.Input{}, one(clean().
			read(1, 9, stsKey, "s1", "x1", 20, 21))},
		{"a read outside any reconcile", "1 reads made in no reconcile", history.Input{}, one(clean().
			read(history.WorkerNone, 0, bcKey, "u1", "11", 20, 21))},
		{"a leadership the audit log does not hold", "1 leaderships whose Lease write is not in the audit log",
			history.Input{Audit: &history.Audit{}}, one(clean().leading("l-9", 30))},
		{"a trace line that did not parse", "2 trace lines that could not be parsed", history.Input{}, one(unreadable)},
		{"two histories under one process name, a stale read split across them", `two histories share the process name "p"`,
			history.Input{}, []*builder{stale, staleToo}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := checkWith(tt.in, tt.hs...)
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Err() = %v, want it to name %q\n%s", err, tt.want, r.Summary())
			}
		})
	}
	// A gap a test expects, and says why, is no failure.
	r := checkWith(history.Input{Expect: map[history.Gap]string{history.GapUnparseable: "the test plants one"}},
		clean().read(1, 9, stsKey, "s1", "x1", 20, 21))
	if err := r.Err(); err != nil {
		t.Errorf("an expected gap failed the run: %v", err)
	}
}

func TestStaleReadsAreTheReadYourWritesViolationsByResource(t *testing.T) {
	r := check(newHistory("p").
		write(1, 1, bcKey, "patch", "", "u1", "11", 200, 1, 2).
		read(1, 2, bcKey, "u1", "10", 3, 4).
		write(1, 2, stsKey, "create", "", "s1", "20", 201, 5, 6).
		read(1, 3, stsKey, "", "", 7, 8).
		read(1, 4, stsKey, "s1", "20", 9, 10))
	if got := r.StaleReads(); got["brokerclusters"] != 1 || got["statefulsets"] != 1 || len(got) != 2 {
		t.Errorf("StaleReads() = %v, want one of each", got)
	}
	if got := r.ReadsOf(); got["brokerclusters"] != 1 || got["statefulsets"] != 2 {
		t.Errorf("ReadsOf() = %v, want 1 and 2", got)
	}
}
