package harness

import (
	"net/http"
	"slices"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/test/history"
)

func TestRuleShowsBothJudgesAndTheirProblems(t *testing.T) {
	agree := Rule{Name: "double decommissions", History: Tally{Judged: 12, Violations: 0}, Simulator: Tally{Judged: 11, Violations: 0}}
	if got := agree.String(); got != "double decommissions: history 0 of 12, simulator 0 of 11" {
		t.Errorf("String() = %q", got)
	}
	if p := agree.Problems(true); len(p) != 0 {
		t.Errorf("two judges that agree: %q", p)
	}
	for _, tt := range []struct {
		rule   Rule
		judged bool
		want   []string
	}{
		{Rule{"r", Tally{Judged: 3, Violations: 1}, Tally{Judged: 3}}, true, []string{"r: the history checker found 1 violations, the simulator 0"}},
		{Rule{"r", Tally{}, Tally{Judged: 3}}, true, []string{"r: the history checker judged no call"}},
		{Rule{"r", Tally{}, Tally{}}, false, nil}, // no such calls made: nothing to judge
		{Rule{"r", Tally{NotJudged: "no maintenance-off"}, Tally{Judged: 2, Violations: 1}}, true, nil},
		{Rule{"r", Tally{Judged: 2}, Tally{NotJudged: "no leader"}}, true, nil},
	} {
		if got := tt.rule.Problems(tt.judged); !slices.Equal(got, tt.want) {
			t.Errorf("%v.Problems(%v) = %q, want %q", tt.rule, tt.judged, got, tt.want)
		}
	}
	if got := (Tally{NotJudged: "why"}).String(); got != "not judged" {
		t.Errorf("Tally.String() = %q", got)
	}
}

func TestTallies(t *testing.T) {
	calls := []admintest.Call{
		{Method: http.MethodPut, Status: 200, Path: "/v1/brokers/2/decommission"},
		{Method: http.MethodPut, Status: 400, Path: "/v1/brokers/2/decommission"},
		{Method: http.MethodPut, Status: 500, Fault: "injected 500", Path: "/v1/brokers/1/decommission"},
		{Method: http.MethodPut, Status: 0, Fault: "client gave up", Path: "/v1/brokers/1/decommission"},
		{Method: http.MethodGet, Status: 200, Path: "/v1/brokers/1/decommission"},
		{Method: http.MethodPut, Status: 200, Path: "/v1/brokers/1/maintenance"},
		{Method: http.MethodDelete, Status: 200, Path: "/v1/brokers/1/maintenance"},
	}
	if got := DecommissionTally(calls, []string{"double"}); got != (Tally{Judged: 2, Violations: 1}) {
		t.Errorf("DecommissionTally = %+v, want 2 judged (the ones that reached the brokers), 1 violation", got)
	}
	if got := MaintenanceCalls(calls); got != 1 {
		t.Errorf("MaintenanceCalls = %d, want 1", got)
	}
	r := &history.Report{Judged: map[history.Guarantee]int{history.OneDecommission: 4},
		NotJudged:  map[history.Guarantee]string{history.OneUnavailable: "no maintenance-off"},
		Violations: []history.Violation{{Guarantee: history.OneDecommission}}}
	if got := HistoryTally(r, history.OneDecommission); got != (Tally{Judged: 4, Violations: 1}) {
		t.Errorf("HistoryTally(one-decommission) = %+v", got)
	}
	if got := HistoryTally(r, history.OneUnavailable); got.NotJudged != "no maintenance-off" {
		t.Errorf("HistoryTally(one-unavailable) = %+v", got)
	}
}
