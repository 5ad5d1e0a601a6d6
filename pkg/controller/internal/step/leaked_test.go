package step

import (
	"testing"

	"k8s.io/utils/ptr"
)

func TestALeakedFlagIsClearedFirstButNeverMidDecommission(t *testing.T) {
	leaked := []LeakedMaintenance{{ID: 101, Pod: "redpanda-1"}}
	o := Observation{Cluster: "redpanda", Desired: 2, Current: 3, Health: Health{Known: true}, Leaked: leaked,
		Victim: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}}
	if s := Decide(o); s.Kind != ClearLeakedMaintenance || s.Broker == nil || *s.Broker != 101 {
		t.Errorf("a scale-down with a leaked flag: %s of %v, want %s of 101 first", s.Kind, OptionalID(s.Broker), ClearLeakedMaintenance)
	}
	if row := Rows[ClearLeakedMaintenance]; row.Call != CallMaintenanceOff || row.Irreversible != Reversible {
		t.Errorf("row %+v: want a reversible maintenance-off call", row)
	}
	o.Decommissioning = ptr.To[int32](102)
	if s := Decide(o); s.Kind == ClearLeakedMaintenance {
		t.Error("a leaked flag was cleared in the middle of a decommission")
	}
	o.Decommissioning, o.AdminUnavailable = nil, true
	if s := Decide(o); s.Kind == ClearLeakedMaintenance {
		t.Error("a leaked flag was cleared on an admin API that did not answer")
	}
}
