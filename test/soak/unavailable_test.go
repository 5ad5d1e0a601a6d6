package soak

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestMaintenanceOutagesPairsSuccessfulOnAndOffCalls(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	call := func(s int, method string, node, status int) admintest.Call {
		return admintest.Call{At: at(s), Method: method, Path: "/v1/brokers/" + strconv.Itoa(node) + "/maintenance", NodeID: node, Status: status}
	}
	calls := []admintest.Call{
		call(1, http.MethodPut, 2, http.StatusServiceUnavailable), // refused by a fault: no outage
		call(2, http.MethodPut, 2, http.StatusOK),
		call(3, http.MethodGet, 2, http.StatusOK),
		call(4, http.MethodPut, 2, http.StatusOK), // a retry of one already on
		call(6, http.MethodDelete, 2, http.StatusOK),
		call(7, http.MethodPut, 1, http.StatusOK), // still on at the end
		{At: at(8), Method: http.MethodPut, Path: "/v1/brokers/1/decommission", NodeID: 1, Status: http.StatusOK},
	}
	got := MaintenanceOutages(calls)
	want := []Outage{{NodeID: 2, From: at(2), To: at(6)}, {NodeID: 1, From: at(7)}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestUnavailability(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cases := []struct {
		name     string
		outages  []Outage
		most     int
		overlaps []string // a part of each overlap's text
	}{
		{name: "one restart after another, a broker down inside a restart under way", outages: []Outage{
			{NodeID: 3, From: at(0), To: at(10)},
			{NodeID: 1, From: at(4), To: at(8), Injected: true}, // landed during 3's restart
			{NodeID: 2, From: at(10), To: at(20)},               // begins as 3's ends
			{NodeID: 1, From: at(20)},                           // begins as 2's ends, never ends
		}, most: 1},
		{name: "a restart begun while another broker is in maintenance", outages: []Outage{
			{NodeID: 3, From: at(0), To: at(10)},
			{NodeID: 2, From: at(9), To: at(20)},
		}, most: 2, overlaps: []string{"node 2 into maintenance at 2026-12-02T11:00:09Z while node 3 in maintenance"}},
		{name: "a restart begun while another broker is down", outages: []Outage{
			{NodeID: 1, From: at(0), Injected: true},
			{NodeID: 2, From: at(5), To: at(20)},
		}, most: 1, overlaps: []string{"node 2 into maintenance at 2026-12-02T11:00:05Z while node 1 down (injected)"}},
		{name: "nothing happened"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			most, overlaps := Unavailability("bc", tc.outages)
			if most != tc.most {
				t.Errorf("most = %d, want %d", most, tc.most)
			}
			if len(overlaps) != len(tc.overlaps) {
				t.Fatalf("overlaps = %q, want %d", overlaps, len(tc.overlaps))
			}
			for i, o := range overlaps {
				if !strings.Contains(o, tc.overlaps[i]) {
					t.Errorf("overlap %d = %q, want it to contain %q", i, o, tc.overlaps[i])
				}
			}
		})
	}
}

func TestPodDownOverlapsDropsTheHarnessOwnDowns(t *testing.T) {
	injected := map[string][]Outage{"bc-001": {{NodeID: 7, Ordinal: 1, Injected: true, CallsBefore: 40, CallsAfter: 42}}}
	mine := "soak/bc-001: ordinal 1 restarting while node 9 (ordinal 2) in maintenance, after call #41"
	operators := []string{
		// the restarted broker's pod deleted while the injected one was down
		"soak/bc-001: ordinal 2 restarting while node 7 (ordinal 1) restarting, after call #50",
		// the same ordinal in another cluster
		"soak/bc-002: ordinal 1 restarting while node 3 (ordinal 2) in maintenance, after call #41",
		// the same ordinal later, not the harness's Down
		"soak/bc-001: ordinal 1 put into maintenance by call #60 while node 9 (ordinal 2) in maintenance, after call #60",
	}
	got := PodDownOverlaps(append([]string{mine}, operators...), injected)
	if !slices.Equal(got, operators) {
		t.Errorf("got %q, want %q", got, operators)
	}
	if got := PodDownOverlaps([]string{mine}, injected); len(got) != 0 {
		t.Errorf("a clean run: got %q, want none", got)
	}
}

// A restart lasts until its broker is back and has reclaimed its load, though maintenance mode
// was taken off while its pod could not start: a restart of another broker in that time is an
// overlap.
func TestOwnOutagesLastUntilTheBrokerIsBackAndRecovered(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	restarts := []Outage{
		{NodeID: 3, From: at(0), To: at(4)}, // maintenance off at 4 while its pod cannot start
		{NodeID: 2, From: at(30), To: at(40)},
	}
	cannotStart := []Outage{
		{NodeID: 3, From: at(2), To: at(10), Why: WhyCannotStart},
		{NodeID: 5, From: at(50), To: at(55), Why: WhyCannotStart}, // in no restart: its own
	}
	recoveries := []Outage{
		{NodeID: 3, From: at(10), To: at(20), Why: WhyRecovering}, // after the pod came back
		{NodeID: 1, From: at(32), To: at(36), Why: WhyRecovering}, // after an injected outage
	}
	own, used := OwnOutages(restarts, cannotStart, recoveries)
	want := []Outage{{NodeID: 3, From: at(0), To: at(20)}, restarts[1], cannotStart[1]}
	if !slices.Equal(own, want) {
		t.Errorf("own outages %+v, want %+v", own, want)
	}
	if len(used) != 3 {
		t.Errorf("used %+v, want the three spans of nodes 3 and 5", used)
	}
	// The operator restarts node 2 while node 3 has not recovered: an overlap, which the
	// maintenance calls alone do not show.
	early := append(slices.Clone(restarts), Outage{NodeID: 2, From: at(15), To: at(25)})
	if _, overlaps := Unavailability("bc", early); len(overlaps) != 0 {
		t.Fatalf("maintenance alone: %v", overlaps)
	}
	own, _ = OwnOutages(early, cannotStart, recoveries)
	most, overlaps := Unavailability("bc", own)
	if most != 2 || len(overlaps) != 1 || !strings.Contains(overlaps[0], "node 2 into maintenance at 2026-12-02T11:00:15Z while node 3 in maintenance") {
		t.Errorf("most %d, overlaps %v; want node 2's restart at 15 s judged against node 3's, which lasts until 20 s", most, overlaps)
	}
}
