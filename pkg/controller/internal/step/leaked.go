package step

import "fmt"

// A maintenance flag with no restart behind it. Maintenance mode moves a broker's partition
// leadership away and keeps it away, and Redpanda lets only one broker be in it at a time
// (members_manager: "another node is already in maintenance mode"), so a flag left on a broker
// that is back, by a preStop hook whose broker returned under a new node ID (redpanda-data/
// redpanda-operator issue 1674), by a person, or by a tool, leaves that broker leading nothing
// and holds every later restart and decommission back ("no other broker draining or in
// maintenance"). A broker in maintenance that is alive, whose pod is Ready, that no decommission
// or restart of this operator is about, is taken out of it.

// ClearLeakedMaintenance takes such a broker out of maintenance mode.
const ClearLeakedMaintenance Kind = "ClearLeakedMaintenance"

// LeakedMaintenance is a broker in maintenance mode that nothing of the operator's is about:
// alive, an active member, its pod Ready, and neither B nor R's broker.
type LeakedMaintenance struct {
	ID  int32
	Pod string
}

// clearLeaked decides ClearLeakedMaintenance for the first leaked flag, when no decommission is
// under way (a decommission's broker is never in the list; a restart's is left out of it).
func clearLeaked(o Observation) (Step, bool) {
	if o.Decommissioning != nil || o.AdminUnavailable || len(o.Leaked) == 0 {
		return Step{}, false
	}
	l := o.Leaked[0]
	id := l.ID
	return Step{Kind: ClearLeakedMaintenance, Broker: &id, Reason: fmt.Sprintf(
		"taking broker %d (pod %s) out of maintenance mode: it is back, its pod Ready, and no restart or decommission of it is under way, so its flag was left behind (a preStop hook, a person, a tool); in maintenance it leads no partition and holds back every other restart and decommission", l.ID, l.Pod)}, true
}
