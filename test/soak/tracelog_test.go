package soak

import (
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/history"
)

// Lines as pkg/controller's LogTracer writes them at -v=4 (klog's text format).
const (
	tracedReadLine = `I1202 14:25:00.123456   27581 trace.go:119] "Traced read" brokercluster="soak/bc-001" worker=3 reconcile=17 ` +
		`resource="statefulsets" object="soak/bc-001" uid="6f1c" resourceVersion="4711" found=true start=1764685500123000000 end=1764685500123004000`
	tracedMissLine = `I1202 14:25:00.123456   27581 trace.go:119] "Traced read" brokercluster="soak/bc-001" worker=3 reconcile=17 ` +
		`resource="statefulsets" object="soak/bc-001" uid="" resourceVersion="" found=false start=5 end=6`
	tracedAdminLine = `I1202 14:25:00.223456   27581 trace.go:133] "Traced admin call" brokercluster="soak/bc-001" worker=3 reconcile=17 ` +
		`resource="brokerclusters" object="soak/bc-001" call="decommission" broker=2 start=7 end=9 err="PUT \"/v1/brokers/2/decommission\": 500"`
)

func TestParseTrace(t *testing.T) {
	key := history.Key{Resource: "statefulsets", Namespace: "soak", Name: "bc-001"}
	for _, c := range []struct {
		line string
		want history.Event
	}{
		{tracedReadLine, history.Event{Kind: history.KindRead, Worker: 3, Reconcile: 17, Key: key, UID: "6f1c", RV: "4711", Found: true,
			Start: 1764685500123000000, End: 1764685500123004000}},
		{tracedMissLine, history.Event{Kind: history.KindRead, Worker: 3, Reconcile: 17, Key: key, Start: 5, End: 6}},
		{tracedAdminLine, history.Event{Kind: history.KindAdmin, Worker: 3, Reconcile: 17, Key: history.Key{Resource: "brokerclusters", Namespace: "soak", Name: "bc-001"},
			Verb: "decommission", Broker: "2", Err: `PUT "/v1/brokers/2/decommission": 500`, Start: 7, End: 9}},
	} {
		got, traced, ok := ParseTrace(c.line)
		if !traced || !ok || got != c.want {
			t.Errorf("ParseTrace(%s)\n= %+v, %v, %v\nwant %+v", c.line, got, traced, ok, c.want)
		}
	}
	if e, traced, ok := ParseTrace(`I1202 14:25:00.123456   27581 sync.go:107] "Reconciling" brokercluster="soak/bc-001" readStrategy="writeback"`); traced || ok {
		t.Errorf("an untraced line parsed as %+v, traced %v", e, traced)
	}
	// A traced line that does not parse is reported as such, for the reader to count.
	for _, line := range []string{
		`I1202 14:25:00.123456   27581 trace.go:119] "Traced read" worker=3 reconcile=17 resource="statefulsets" object="soak/bc-001" found=true start=9 end=8`,
		`I1202 14:25:00.123456   27581 trace.go:119] "Traced read" worker=x reconcile=17 resource="statefulsets" object="soak/bc-001" found=true start=1 end=2`,
		`I1202 14:25:00.123456   27581 trace.go:133] "Traced admin call" worker=3 reconcile=17 resource="brokerclusters" object="soak/bc-001" broker=2 start=7 end=9 err=""`,
		`I1202 14:25:00.123456   27581 trace.go:119] "Traced read" worker=3 reconcile=17 resource="statefulsets" object="soak/bc-001" uid="\q" found=true start=1 end=2`,
	} {
		if e, traced, ok := ParseTrace(line); !traced || ok {
			t.Errorf("ParseTrace(%s) = %+v, traced %v, ok %v; want traced and not ok", line, e, traced, ok)
		}
	}
}

// Every trace line the reader could not parse is counted in the history, which the checker
// then refuses as evidence.
func TestProcessHistoryCountsUnreadableTraceLines(t *testing.T) {
	ph := NewProcessHistory("a-1", history.Key{Resource: "leases", Namespace: "op", Name: "lease"})
	ph.Unreadable()
	ph.Unreadable()
	h := ph.History()
	if h.Unreadable != 2 {
		t.Fatalf("Unreadable = %d, want 2", h.Unreadable)
	}
	r := history.Check(history.Input{Histories: []*history.History{h}})
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "2 trace lines that could not be parsed") {
		t.Errorf("Err() = %v, want it to name the unreadable lines", err)
	}
}

// A traced line's Unix-nanosecond times land on the history's clock where the proxy's own
// readings of the same instants do.
func TestProcessHistoryPutsTracedTimesOnItsClock(t *testing.T) {
	ph := NewProcessHistory("a-1", history.Key{Resource: "leases", Namespace: "op", Name: "lease"})
	before := ph.Now()
	start := controller.TraceNow()
	end := start + 1000
	after := ph.Now()
	e, _, ok := ParseTrace(tracedReadLine)
	if !ok {
		t.Fatal("the read line did not parse")
	}
	e.Start, e.End = start, end
	ph.Traced(e)
	got := ph.History().Events
	// The shift is read from two clocks one after the other: allow for the time between.
	const slack = int64(time.Millisecond)
	if len(got) != 1 || got[0].Start < before-slack || got[0].Start > after+slack || got[0].End-got[0].Start != 1000 || got[0].Worker != 3 {
		t.Errorf("traced read recorded as %+v, want worker 3, start within [%d, %d], 1µs long", got, before, after)
	}
}
