package soak

import (
	"testing"
	"time"
)

func TestParseReconcile(t *testing.T) {
	now := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	line := `I1201 03:40:00.123456   12345 sync.go:58] "Reconciling" logger="controller" brokercluster="soak/bc-001" readStrategy="writeback" brokerClusterResourceVersion="1234" statefulSetResourceVersion="" desiredReplicas=3 currentReplicas=4 decommissioningBroker="105"`
	got, ok := ParseReconcile(line, now)
	if !ok {
		t.Fatal("line not parsed")
	}
	want := Reconcile{At: time.Date(2026, 12, 1, 3, 40, 0, 123456000, time.UTC), Namespace: "soak", Name: "bc-001",
		BrokerClusterRV: "1234", StatefulSetRV: "", DecommissioningNode: "105"}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	for _, other := range []string{
		`I1201 03:40:00.123456   12345 sync.go:228] "Decision" brokercluster="soak/bc-001" step="StartDecommission"`,
		`I1201 03:40:00.123456   12345 sync.go:58] "Reconciling" brokercluster="soak/bc-001"`, // versions missing
		`some unrelated line "Reconciling" brokercluster="soak/bc-001"`,
	} {
		if r, ok := ParseReconcile(other, now); ok {
			t.Errorf("parsed %q as %+v", other, r)
		}
	}
}

func TestParseReconcileAcrossNewYear(t *testing.T) {
	now := time.Date(2027, 1, 1, 0, 0, 1, 0, time.UTC)
	line := `I1231 23:59:59.000001 1 sync.go:58] "Reconciling" brokercluster="a/b" brokerClusterResourceVersion="1" statefulSetResourceVersion="2"`
	got, ok := ParseReconcile(line, now)
	if !ok || got.At.Year() != 2026 {
		t.Errorf("got %v (%v), want a time in 2026", got.At, ok)
	}
}
