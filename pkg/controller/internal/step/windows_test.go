package step

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func window(start string, d time.Duration, tz string, days ...v1alpha1.Weekday) v1alpha1.MaintenanceWindow {
	return v1alpha1.MaintenanceWindow{Days: days, Start: start, Duration: metav1.Duration{Duration: d}, TimeZone: tz}
}

func TestObserveWindow(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// Saturday 2026-12-05.
	sat := func(hour, minute int) time.Time { return time.Date(2026, 12, 5, hour, minute, 0, 0, berlin) }
	weekend := []v1alpha1.MaintenanceWindow{window("02:00", 4*time.Hour, "Europe/Berlin", "Saturday", "Sunday")}
	for _, tc := range []struct {
		name    string
		windows []v1alpha1.MaintenanceWindow
		now     time.Time
		inside  bool
		next    time.Time
		invalid string
	}{
		{name: "no windows: always inside", now: sat(12, 0), inside: true},
		{name: "just opened", windows: weekend, now: sat(2, 0), inside: true},
		{name: "open", windows: weekend, now: sat(5, 59), inside: true},
		{name: "closed at its end", windows: weekend, now: sat(6, 0), next: time.Date(2026, 12, 6, 2, 0, 0, 0, berlin)},
		{name: "before it opens", windows: weekend, now: sat(1, 59), next: sat(2, 0)},
		{name: "weekday waits for Saturday", windows: weekend, now: time.Date(2026, 12, 2, 12, 0, 0, 0, berlin), next: sat(2, 0)},
		{name: "Sunday's closed: next Saturday", windows: weekend, now: time.Date(2026, 12, 6, 7, 0, 0, 0, berlin), next: time.Date(2026, 12, 12, 2, 0, 0, 0, berlin)},
		{name: "a window over midnight is open the next morning",
			windows: []v1alpha1.MaintenanceWindow{window("22:00", 4*time.Hour, "UTC", "Friday")},
			now:     time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC), inside: true},
		{name: "every day when no day is named", windows: []v1alpha1.MaintenanceWindow{window("03:00", time.Hour, "")},
			now: time.Date(2026, 12, 2, 3, 30, 0, 0, time.UTC), inside: true},
		{name: "the sooner of two windows",
			windows: []v1alpha1.MaintenanceWindow{window("02:00", time.Hour, "UTC", "Sunday"), window("23:00", time.Hour, "UTC", "Wednesday")},
			now:     time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC), next: time.Date(2026, 12, 2, 23, 0, 0, 0, time.UTC)},
		{name: "a time zone the operator does not know", windows: []v1alpha1.MaintenanceWindow{window("02:00", time.Hour, "Mars/Olympus")},
			now: sat(3, 0), invalid: `"Mars/Olympus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := ObserveWindow(tc.windows, tc.now)
			if tc.invalid != "" {
				if !strings.Contains(w.Invalid, tc.invalid) || w.Inside {
					t.Fatalf("ObserveWindow = %+v, want invalid naming %s and not inside", w, tc.invalid)
				}
				return
			}
			if w.Inside != tc.inside || !w.Next.Equal(tc.next) || w.Invalid != "" {
				t.Fatalf("ObserveWindow = %+v, want inside %v, next %v", w, tc.inside, tc.next)
			}
		})
	}
}

// Daylight saving: a window at 02:30 local opens at 02:30 of the local clock on both sides of
// the change; on the night the clock skips 02:00-03:00 it opens at 03:30 (time.Date's rule).
func TestObserveWindowFollowsTheLocalClockThroughDaylightSaving(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	windows := []v1alpha1.MaintenanceWindow{window("02:30", 30*time.Minute, "America/New_York", "Sunday")}
	// Sunday 2026-11-01 is the end of daylight saving time in New York.
	w := ObserveWindow(windows, time.Date(2026, 10, 31, 12, 0, 0, 0, ny))
	if want := time.Date(2026, 11, 1, 2, 30, 0, 0, ny); !w.Next.Equal(want) {
		t.Fatalf("next = %v, want %v", w.Next, want)
	}
	if w := ObserveWindow(windows, time.Date(2026, 11, 8, 2, 45, 0, 0, ny)); !w.Inside {
		t.Fatalf("a week later at 02:45 the window should be open: %+v", w)
	}
}

func TestCheckWindowIsAFactError(t *testing.T) {
	windows := []v1alpha1.MaintenanceWindow{window("02:00", time.Hour, "UTC")}
	if err := CheckWindow(windows, time.Date(2026, 12, 2, 2, 30, 0, 0, time.UTC)); err != nil {
		t.Fatalf("inside the window: %v", err)
	}
	err := CheckWindow(windows, time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC))
	fe, ok := err.(*FactError)
	if !ok || fe.Fact != FactInsideWindow || !strings.Contains(fe.Why, "2026-12-03T02:00:00Z") {
		t.Fatalf("outside the window: %v, want a FactError naming the next opening", err)
	}
	if WaitFor(FactInsideWindow) != WaitForMaintenanceWindow {
		t.Fatal("a closed window must hold the step for the next one")
	}
}

// Every step that starts taking a broker away carries the window fact; the steps that go on
// with a broker under way do not, so that it finishes its broker after the window closes.
func TestTheWindowFactIsOnTheStartingStepsOnly(t *testing.T) {
	for kind, row := range Rows {
		has := false
		for _, f := range row.Facts {
			has = has || f == FactInsideWindow
		}
		if has != windowed[kind] {
			t.Errorf("%s: carries the window fact %v, but windowed %v", kind, has, windowed[kind])
		}
	}
	for _, k := range []Kind{StartDecommission, Decommission, StartRestart, EnableMaintenance, RestartSingleBroker} {
		if !windowed[k] {
			t.Errorf("%s starts taking a broker away and must wait for a window", k)
		}
	}
	for _, k := range []Kind{RestartPod, DeletePod, FinishRestart, WaitForDrain, FinishDecommission, ReplaceStuckPod, ScaleUp} {
		if windowed[k] {
			t.Errorf("%s goes on with a broker under way (or takes nothing away) and must not wait for a window", k)
		}
	}
}

func TestHoldForWindow(t *testing.T) {
	closed := Window{Configured: true, Next: time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)}
	id := int32(102)
	start := Step{Kind: StartRestart, Broker: &id, Reason: "restarting broker 102"}

	held := holdForWindow(start, Observation{Window: closed})
	if held.Kind != WaitForMaintenanceWindow || !strings.Contains(held.Reason, "the restart of broker 102 waits") ||
		!strings.Contains(held.Reason, "2026-12-05T02:00:00Z") || held.WindowInvalid {
		t.Fatalf("held = %+v", held)
	}
	if got := holdForWindow(start, Observation{Window: Window{Configured: true, Inside: true}}); got.Kind != StartRestart {
		t.Fatalf("inside a window the step goes on: %+v", got)
	}
	anyTime := start
	anyTime.AnyTime = true
	if got := holdForWindow(anyTime, Observation{Window: closed}); got.Kind != StartRestart {
		t.Fatalf("a restart asked for on the pod is not held: %+v", got)
	}
	if got := holdForWindow(Step{Kind: RestartPod, Broker: &id}, Observation{Window: closed}); got.Kind != RestartPod {
		t.Fatalf("a restart under way finishes its broker: %+v", got)
	}
	invalid := holdForWindow(Step{Kind: StartDecommission, Broker: &id}, Observation{Window: Window{Configured: true, Invalid: "bad zone"}})
	if invalid.Kind != WaitForMaintenanceWindow || !invalid.WindowInvalid {
		t.Fatalf("an invalid window holds and degrades: %+v", invalid)
	}
}

// Who asked for a restart on the pod decides whether a window holds it: a drain or a person
// chose the time; the operator's own resize restart waits like any other.
func TestRequestedAnyTime(t *testing.T) {
	o := Observation{Rollout: Rollout{Order: []PodAt{
		{Ordinal: 2, Requested: true, RequestedBy: "eviction of pod bc-2 (node n1 cordoned)"},
		{Ordinal: 1, Requested: true, RequestedBy: ResizeRestartBy("data-bc-1")},
		{Ordinal: 0, Template: true},
	}}}
	for ordinal, want := range map[int32]bool{2: true, 1: false, 0: false, 7: false} {
		if got := requestedAnyTime(o, ordinal); got != want {
			t.Errorf("ordinal %d: requestedAnyTime = %v, want %v", ordinal, got, want)
		}
	}
}

// A held step drops what it had recorded but not begun, so that a scale-up does not wait
// behind it; a restart under way keeps its record.
func TestAHoldDropsARecordNotBegun(t *testing.T) {
	b := int32(104)
	bc := &v1alpha1.BrokerCluster{Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 5, DecommissioningBroker: &b,
		Restart: &v1alpha1.BrokerRestart{Pod: "bc-1", Ordinal: 1, NodeID: 101, Step: v1alpha1.RestartDraining}}}
	_, decommissioning, lc := Change(bc, Step{Kind: WaitForMaintenanceWindow}, Observation{}, false)
	if decommissioning != nil || lc.Restart != nil {
		t.Fatalf("decommissioning %v, restart %+v: a hold before the first call keeps neither", decommissioning, lc.Restart)
	}
	bc.Status.Restart.Step = v1alpha1.RestartRestarting
	if _, _, lc := Change(bc, Step{Kind: WaitForMaintenanceWindow}, Observation{}, false); lc.Restart == nil {
		t.Fatal("a restart whose pod is being replaced is under way and keeps its record")
	}
}
