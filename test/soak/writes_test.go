package soak

import (
	"testing"
	"time"
)

func TestWriteLogStale(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w := NewWriteLog()
	w.Record("brokerclusters", "ns", "a", "100", at(10))
	w.Record("brokerclusters", "ns", "a", "120", at(20))
	w.Record("brokerclusters", "ns", "a", "110", at(21)) // an older answer recorded late
	w.Record("statefulsets", "ns", "a", "50", at(5))

	for _, c := range []struct {
		resource, rv string
		at           int
		stale        bool
		newer        string
	}{
		{"brokerclusters", "90", 5, false, ""},      // before any write
		{"brokerclusters", "90", 15, true, "100"},   // older than the write before it
		{"brokerclusters", "100", 15, false, "100"}, // exactly the write
		{"brokerclusters", "110", 25, true, "120"},  // the newest write counts, not the last recorded
		{"brokerclusters", "130", 25, false, "120"}, // newer: someone else wrote since
		{"brokerclusters", "100", 20, false, "100"}, // the write at 20 ms had not finished before a read logged then
		{"statefulsets", "", 6, true, "50"},         // created, yet not found
		{"statefulsets", "", 4, false, ""},          // not created yet
		{"brokerclusters", "1", 25, true, "120"},
	} {
		stale, newer := w.Stale(c.resource, "ns", "a", c.rv, at(c.at))
		if stale != c.stale || newer != c.newer {
			t.Errorf("%s read %q at %d ms: stale %v (newest %q), want %v (%q)", c.resource, c.rv, c.at, stale, newer, c.stale, c.newer)
		}
	}
	if stale, _ := w.Stale("brokerclusters", "ns", "other", "1", at(100)); stale {
		t.Error("an object never written read as stale")
	}
	w.Record("brokerclusters", "ns", "", "1", at(1))
	if w.Unparsed() != 1 {
		t.Errorf("unparsed %d, want 1", w.Unparsed())
	}
}
