package step

import "fmt"

// Member is what the brokers list (GET /v1/brokers) says of one broker, as the facts read it.
type Member struct {
	ID    int32
	Alive bool
	// Membership is Redpanda's membership_status, for messages; Draining and Removed are two of
	// its values.
	Membership        string
	Draining, Removed bool
	// InMaintenance is maintenance_status.draining: maintenance mode is on.
	InMaintenance bool
}

// FirstDown returns the first member other than broker self that is not alive. A removed member
// has left the cluster and does not count: "every other broker up" means every other member.
// The observation (Rollout.OthersUp) and the fresh check of FactOthersUp both judge it here.
func FirstDown(members []Member, self int32) (int32, bool) {
	for _, m := range members {
		if m.ID != self && !m.Removed && !m.Alive {
			return m.ID, true
		}
	}
	return 0, false
}

// JudgeMembers judges the facts that the brokers list answers, for a step on broker self (-1 for
// none), and returns a *FactError for the first that does not hold. Facts the list does not
// answer pass. Nothing waives them: spec.unsafeSkipHealthGate opens the health gate, never
// "every other broker up".
func JudgeMembers(facts []Fact, self int32, members []Member) error {
	for _, f := range facts {
		if err := judgeMember(f, self, members); err != nil {
			return err
		}
	}
	return nil
}

func judgeMember(f Fact, self int32, members []Member) error {
	switch f {
	case FactOthersUp:
		if id, down := FirstDown(members, self); down {
			return &FactError{Fact: f, Why: fmt.Sprintf("broker %d is down", id)}
		}
	case FactNoOtherDrain:
		for _, m := range members {
			switch {
			case m.ID != self && m.Draining:
				return &FactError{Fact: f, Why: fmt.Sprintf("broker %d is draining", m.ID)}
			case m.ID != self && m.InMaintenance:
				return &FactError{Fact: f, Why: fmt.Sprintf("broker %d is in maintenance", m.ID)}
			}
		}
	case FactBrokerLeft:
		for _, m := range members {
			if m.ID == self && !m.Removed {
				return &FactError{Fact: f, Why: fmt.Sprintf("broker %d is still listed as %s", m.ID, m.Membership)}
			}
		}
	}
	return nil
}
