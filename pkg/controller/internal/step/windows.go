package step

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	// The operator's image may carry no zoneinfo; the names a window gives must still resolve.
	_ "time/tzdata"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Maintenance windows. spec.maintenanceWindows makes "inside a window" a fact of every step that
// starts taking a broker away (FactInsideWindow): a restart's maintenance mode on, a
// single broker's pod delete, a decommission, a lost broker's claim deletion. The decision holds such a step outside a window
// (WaitForMaintenanceWindow), and the runner reads the clock afresh right before the call, so a
// window that closes between the two holds it too. What comes after the first call of a broker
// (its pod's delete, maintenance off, the wait for its drain) is not held: a step under way
// finishes its broker, and the next one waits for the next window.

// Window is what the maintenance windows say at one instant. The zero value is no window
// configured: nothing is held.
type Window struct {
	// Configured: spec.maintenanceWindows is not empty; without windows every time is inside.
	Configured bool
	// Inside: now is inside one of the windows (or none is configured).
	Inside bool
	// Next is when the next window opens, zero while inside or when none is configured.
	Next time.Time
	// Invalid says why the windows cannot be read (a time zone the operator does not know);
	// nothing that waits for a window starts while it is set.
	Invalid string
}

// ObserveWindow reads the windows at now.
func ObserveWindow(windows []v1alpha1.MaintenanceWindow, now time.Time) Window {
	if len(windows) == 0 {
		return Window{Inside: true}
	}
	w := Window{Configured: true}
	for i, mw := range windows {
		loc, err := time.LoadLocation(mw.TimeZone)
		if err != nil {
			return Window{Configured: true, Invalid: fmt.Sprintf("spec.maintenanceWindows[%d].timeZone %q is not a time zone the operator knows", i, mw.TimeZone)}
		}
		hour, minute, ok := parseStart(mw.Start)
		if !ok {
			return Window{Configured: true, Invalid: fmt.Sprintf("spec.maintenanceWindows[%d].start %q is not HH:MM", i, mw.Start)}
		}
		local := now.In(loc)
		// A window is at most a week long, so one that is open now opened at most 8 days ago.
		for d := -8; d <= 8; d++ {
			day := time.Date(local.Year(), local.Month(), local.Day()+d, hour, minute, 0, 0, loc)
			if !opensOn(mw.Days, day.Weekday()) {
				continue
			}
			if !day.After(now) && now.Before(day.Add(mw.Duration.Duration)) {
				w.Inside = true
			}
			if day.After(now) && (w.Next.IsZero() || day.Before(w.Next)) {
				w.Next = day
			}
		}
	}
	if w.Inside {
		w.Next = time.Time{}
	}
	return w
}

// CheckWindow is FactInsideWindow read afresh at now.
func CheckWindow(windows []v1alpha1.MaintenanceWindow, now time.Time) error {
	w := ObserveWindow(windows, now)
	switch {
	case w.Invalid != "":
		return &FactError{Fact: FactInsideWindow, Why: w.Invalid}
	case !w.Inside:
		return &FactError{Fact: FactInsideWindow, Why: "no maintenance window is open: the next opens at " + w.Next.UTC().Format(time.RFC3339)}
	}
	return nil
}

func parseStart(s string) (hour, minute int, ok bool) {
	h, m, found := strings.Cut(s, ":")
	hour, errH := strconv.Atoi(h)
	minute, errM := strconv.Atoi(m)
	return hour, minute, found && errH == nil && errM == nil && hour >= 0 && hour < 24 && minute >= 0 && minute < 60
}

func opensOn(days []v1alpha1.Weekday, d time.Weekday) bool {
	if len(days) == 0 {
		return true
	}
	for _, day := range days {
		if string(day) == d.String() {
			return true
		}
	}
	return false
}

// windowed are the steps that start taking a broker away; each has FactInsideWindow among its
// facts (table.go).
var windowed = map[Kind]bool{
	StartDecommission: true, Decommission: true,
	StartRestart: true, EnableMaintenance: true, RestartSingleBroker: true,
	RecoverLostBroker: true,
}

// holdForWindow turns a windowed step decided outside every window into the wait for the next
// one. A restart asked for on the pod by anyone but the operator itself (a drain, a person) is
// not held: whoever asked chose the time.
func holdForWindow(s Step, o Observation) Step {
	if !windowed[s.Kind] || s.AnyTime {
		return s
	}
	if !o.Window.Configured || (o.Window.Invalid == "" && o.Window.Inside) {
		return s
	}
	why := o.Window.Invalid
	if why == "" {
		why = "no maintenance window is open: the next opens at " + o.Window.Next.UTC().Format(time.RFC3339)
	}
	return Step{Kind: WaitForMaintenanceWindow, Broker: s.Broker, WindowInvalid: o.Window.Invalid != "",
		Reason: fmt.Sprintf("%s waits: %s (spec.maintenanceWindows)", Subject(s), why)}
}

// requestedAnyTime says whether the restart of the pod at ordinal was asked for on the pod by
// someone other than the operator (not a volume resize), so that no window holds it.
func requestedAnyTime(o Observation, ordinal int32) bool {
	for _, p := range o.Rollout.Order {
		if p.Ordinal == ordinal {
			return p.Requested && !IsResizeRestart(p.RequestedBy)
		}
	}
	return false
}
