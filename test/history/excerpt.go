package history

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// excerptRadius is how many events of the same key (or reconcile, for an admin call) an
// excerpt shows before and after the offending one.
const excerptRadius = 3

// excerptScan bounds how far from the offending event an excerpt looks for neighbours.
const excerptScan = 10000

func abs(n int) int { return max(n, -n) }

// excerpt shows event i of h among its neighbours: the events of the same key (for an admin
// call, of the same reconcile) up to excerptRadius before and after it, and every witness. The
// offending event is marked ">", witnesses "*".
func excerpt(h *History, i int, witnesses []int) string {
	e := &h.Events[i]
	related := func(o *Event) bool {
		if e.Kind == KindAdmin {
			return o.Reconcile == e.Reconcile && e.Reconcile != 0
		}
		return o.Key == e.Key
	}
	shown := map[int]bool{i: true}
	for _, w := range witnesses {
		shown[w] = true
	}
	for dir := -1; dir <= 1; dir += 2 {
		n := 0
		for j := i + dir; j >= 0 && j < len(h.Events) && n < excerptRadius && abs(j-i) <= excerptScan; j += dir {
			if related(&h.Events[j]) {
				shown[j] = true
				n++
			}
		}
	}
	order := slices.Sorted(maps.Keys(shown))
	var b strings.Builder
	for _, j := range order {
		mark := " "
		switch {
		case j == i:
			mark = ">"
		case slices.Contains(witnesses, j):
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, h.Events[j].String())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// String formats e on one line: its times (relative to the process's anchor), worker,
// reconcile and what it did.
func (e *Event) String() string {
	head := fmt.Sprintf("%s..%s w%d r%d %-7s", time.Duration(e.Start), time.Duration(e.End), e.Worker, e.Reconcile, e.Kind)
	switch e.Kind {
	case KindRead:
		if !e.Found {
			return fmt.Sprintf("%s %s not found", head, e.Key)
		}
		return fmt.Sprintf("%s %s uid=%s rv=%s", head, e.Key, e.UID, e.RV)
	case KindWrite:
		s := fmt.Sprintf("%s %s %s precondition=%q -> uid=%s rv=%s code=%d", head, e.Verb, e.Key, e.Precondition, e.UID, e.RV, e.Code)
		if e.AuditID != "" {
			s += " audit=" + e.AuditID
		}
		if e.Err != "" {
			s += fmt.Sprintf(" err=%q", e.Err)
		}
		return s
	case KindDelete:
		return fmt.Sprintf("%s %s %s uid=%s rv=%s", head, e.Source, e.Key, e.UID, e.RV)
	case KindAdmin:
		s := fmt.Sprintf("%s %s broker=%s for %s", head, e.Verb, e.Broker, e.Key)
		if e.Err != "" {
			s += fmt.Sprintf(" err=%q", e.Err)
		}
		return s
	}
	return fmt.Sprintf("%s %s audit=%s", head, e.Key, e.AuditID)
}
