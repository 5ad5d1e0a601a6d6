package soak

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// Outage is a span during which one broker of a cluster was unavailable: in maintenance mode
// for a restart by the operator (Injected false), or taken down by the harness (Injected true).
// To is zero while the outage had not ended by the end of the run.
type Outage struct {
	NodeID   int
	From, To time.Time
	Injected bool
	// Why names an outage that is not maintenance mode: "its pod cannot start" or "recovering"
	// (OwnOutages).
	Why string
	// Ordinal, and the simulator's call count just before and just after the broker was taken
	// down, of an injected outage (see PodDownOverlaps).
	Ordinal, CallsBefore, CallsAfter int
}

func (o Outage) covers(at time.Time) bool {
	return !at.Before(o.From) && (o.To.IsZero() || at.Before(o.To))
}

// MaintenanceOutages replays a cluster's calls and returns, for each broker the brokers put into
// maintenance, the span from the maintenance-on call that succeeded to the maintenance-off call
// that succeeded. The operator deletes a restarted broker's pod only inside that span (README,
// "Rollouts"), so it covers the restart too. Calls an injected fault answered did not act.
func MaintenanceOutages(calls []admintest.Call) []Outage {
	var out []Outage
	open := map[int]int{} // node ID -> index in out
	for _, c := range calls {
		if !strings.HasSuffix(c.Path, "/maintenance") || c.Status != http.StatusOK {
			continue
		}
		i, on := open[c.NodeID]
		switch c.Method {
		case http.MethodPut:
			if !on {
				open[c.NodeID] = len(out)
				out = append(out, Outage{NodeID: c.NodeID, From: c.At})
			}
		case http.MethodDelete:
			if on {
				out[i].To = c.At
				delete(open, c.NodeID)
			}
		}
	}
	return out
}

// Unavailability judges one cluster's outages. most is the largest number of brokers the
// operator had in maintenance at any one instant (1 for a rolling restart done right); overlaps
// names each restart the operator began (maintenance on) while another broker of the cluster was
// unavailable, in maintenance or down by injection: what a rolling restart must never do. A
// broker the harness took down during a restart already under way is not an overlap: the
// operator did not choose it.
func Unavailability(cluster string, outages []Outage) (most int, overlaps []string) {
	for _, o := range outages {
		if o.Injected {
			continue
		}
		n := 0
		for _, p := range outages {
			if p.Injected || !p.covers(o.From) {
				continue
			}
			n++ // o itself included
		}
		most = max(most, n)
		var busy []string
		for _, p := range outages {
			if p.NodeID != o.NodeID && p.covers(o.From) {
				busy = append(busy, describeOutage(p))
			}
		}
		if len(busy) > 0 {
			slices.Sort(busy)
			overlaps = append(overlaps, fmt.Sprintf("%s: node %d into maintenance at %s while %s",
				cluster, o.NodeID, o.From.UTC().Format(time.RFC3339Nano), strings.Join(busy, ", ")))
		}
	}
	return most, overlaps
}

func describeOutage(o Outage) string {
	what := "in maintenance"
	switch {
	case o.Injected:
		what = "down (injected)"
	case o.Why != "":
		what = "unavailable (" + o.Why + ")"
	}
	return fmt.Sprintf("node %d %s since %s", o.NodeID, what, o.From.UTC().Format(time.RFC3339Nano))
}

// simOverlap parses an entry of admintest.Server.Overlaps.
var simOverlap = regexp.MustCompile(`^[^/]+/([^:]+): ordinal (\d+) .* after call #(\d+)$`)

// PodDownOverlaps keeps the entries of the simulator's own record of overlaps
// (admintest.Server.Overlaps: a broker put into maintenance, or its pod down, while another
// broker of the cluster was in maintenance or down) that the operator caused: it drops the
// entries the harness's own Down calls made, those naming an injected outage's ordinal, in its
// cluster, between the call counts around its Down. What is left includes a restarted broker's
// pod going down while an injected broker was down: the pod delete the operator must not make.
func PodDownOverlaps(overlaps []string, injected map[string][]Outage) []string {
	var out []string
	for _, o := range overlaps {
		if !injectedOverlap(o, injected) {
			out = append(out, o)
		}
	}
	return out
}

func injectedOverlap(entry string, injected map[string][]Outage) bool {
	m := simOverlap.FindStringSubmatch(entry)
	if m == nil {
		return false
	}
	ordinal, _ := strconv.Atoi(m[2])
	seq, _ := strconv.Atoi(m[3])
	for _, o := range injected[m[1]] {
		if o.Ordinal == ordinal && seq >= o.CallsBefore && seq <= o.CallsAfter {
			return true
		}
	}
	return false
}

// OwnOutages extends each of the operator's restarts (maintenance, from MaintenanceOutages)
// until its broker is back and has reclaimed its load: a span of the same broker that begins
// inside a restart, or inside what was joined to it already, extends it to that span's end. A
// restart lasts that long, though the operator takes maintenance mode off while the broker's
// new pod cannot start. A span of a pod that cannot start that begins outside any restart of
// its broker is an outage of its own; a recovery that does (after an injected outage) is
// dropped: the operator did not restart that broker. It returns the restarts so extended, with
// the outages of their own, and the spans it used.
func OwnOutages(restarts, cannotStart, recoveries []Outage) (own, used []Outage) {
	own = slices.Clone(restarts)
	extra := append(slices.Clone(cannotStart), recoveries...)
	slices.SortStableFunc(extra, func(a, b Outage) int { return a.From.Compare(b.From) })
	for _, e := range extra {
		joined := false
		for i := range own {
			o := &own[i]
			// A span that begins as the restart ends (the broker back, its recovery begun)
			// joins it too.
			if o.NodeID != e.NodeID || e.From.Before(o.From) || (!o.To.IsZero() && e.From.After(o.To)) {
				continue
			}
			if !o.To.IsZero() && (e.To.IsZero() || e.To.After(o.To)) {
				o.To = e.To
			}
			joined = true
			break
		}
		switch {
		case joined:
			used = append(used, e)
		case e.Why != WhyRecovering:
			own = append(own, e)
			used = append(used, e)
		}
	}
	return own, used
}

// The reasons of the outages OwnOutages joins to restarts.
const (
	WhyCannotStart = "its pod cannot start"
	WhyRecovering  = "recovering its load"
)
