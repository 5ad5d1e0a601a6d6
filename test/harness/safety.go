package harness

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/test/history"
)

// Tally is what one judge made of one safety rule: how many calls it judged and how many broke
// the rule. NotJudged says why it judged nothing, when the evidence it needs is missing.
type Tally struct {
	Judged, Violations int
	NotJudged          string
}

func (t Tally) String() string {
	if t.NotJudged != "" {
		return "not judged"
	}
	return fmt.Sprintf("%d of %d", t.Violations, t.Judged)
}

// Rule is one safety rule judged twice, from the operator's histories (test/history) and from
// the broker simulator's call log, so that each judge checks the other.
type Rule struct {
	Name               string
	History, Simulator Tally
}

// String shows the two judges side by side: "history 0 of 12, simulator 0 of 12" (violations
// of calls judged).
func (r Rule) String() string {
	return fmt.Sprintf("%s: history %s, simulator %s", r.Name, r.History, r.Simulator)
}

// Problems names what fails a run beyond the violations themselves: two judges that both
// judged and disagree on the violations, and, when judged says the run made calls the rule
// applies to, a judge that judged none though it had the evidence.
func (r Rule) Problems(judged bool) []string {
	var out []string
	h, s := r.History, r.Simulator
	if h.NotJudged == "" && s.NotJudged == "" && h.Violations != s.Violations {
		out = append(out, fmt.Sprintf("%s: the history checker found %d violations, the simulator %d", r.Name, h.Violations, s.Violations))
	}
	for _, j := range []struct {
		who string
		t   Tally
	}{{"history checker", h}, {"simulator", s}} {
		if judged && j.t.NotJudged == "" && j.t.Judged == 0 {
			out = append(out, fmt.Sprintf("%s: the %s judged no call", r.Name, j.who))
		}
	}
	return out
}

// HistoryTally is what the history checker's report says of guarantee g.
func HistoryTally(r *history.Report, g history.Guarantee) Tally {
	return Tally{Judged: r.Judged[g], Violations: r.Count(g), NotJudged: r.NotJudged[g]}
}

// DecommissionTally is the simulator's judgement of no broker decommissioned twice: the
// decommission requests that reached the brokers (answered, not shaped by an injected fault),
// and doubles, its DoubleDecommissions.
func DecommissionTally(calls []admintest.Call, doubles []string) Tally {
	t := Tally{Violations: len(doubles)}
	for _, c := range calls {
		if c.Method == http.MethodPut && c.Status != 0 && c.Fault == "" && strings.HasSuffix(c.Path, "/decommission") {
			t.Judged++
		}
	}
	return t
}

// MaintenanceCalls counts the maintenance-on requests that reached the brokers: what a judge of
// the brokers in maintenance at once judged.
func MaintenanceCalls(calls []admintest.Call) int {
	n := 0
	for _, c := range calls {
		if c.Method == http.MethodPut && c.Status != 0 && c.Fault == "" && strings.HasSuffix(c.Path, "/maintenance") {
			n++
		}
	}
	return n
}
