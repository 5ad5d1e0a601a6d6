package history

import (
	"fmt"
	"math"
	"time"
)

// Outage is a span in which a broker was unavailable though no admin call of the histories
// says so: its pod could not start (a bad image, a container that crash-loops), or it had not
// reclaimed its load after a restart. The operator took maintenance mode off while the pod
// could not start, so its own calls end the broker's maintenance before the broker is back.
// OneUnavailable judges outages as it judges maintenance. To is zero for an outage that had not
// ended.
type Outage struct {
	Key      Key
	Broker   string
	From, To time.Time
	Why      string
}

// span returns the outage's span on the timeline: its times as offsets from the first
// history's Anchor, compared by their monotonic readings when both carry one.
func (o Outage) span(tl *timeline) (from, to int64) {
	var anchor time.Time
	if len(tl.checks) > 0 {
		anchor = tl.checks[0].h.Anchor
	}
	from, to = int64(o.From.Sub(anchor)), math.MaxInt64
	if !o.To.IsZero() {
		to = int64(o.To.Sub(anchor))
	}
	return from, to
}

// inOutage returns an outage of another broker of x's Key that covers x's start. A call whose
// broker is not known ("-1") is not judged against outages: it cannot be told from the broker
// that is out.
func inOutage(tl *timeline, outages []Outage, x ref) (Outage, bool) {
	xe := tl.event(x)
	if xe.Broker == "-1" || xe.Broker == "" {
		return Outage{}, false
	}
	for _, o := range outages {
		if o.Key != xe.Key || o.Broker == xe.Broker {
			continue
		}
		if from, to := o.span(tl); x.start >= from && x.start < to {
			return o, true
		}
	}
	return Outage{}, false
}

func (o Outage) String() string {
	to := "the end of the run"
	if !o.To.IsZero() {
		to = o.To.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("broker %s unavailable (%s) from %s to %s", o.Broker, o.Why, o.From.UTC().Format(time.RFC3339Nano), to)
}
