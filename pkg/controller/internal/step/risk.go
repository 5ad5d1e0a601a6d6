package step

import (
	"fmt"
	"strings"
)

// Restart risk: from Redpanda 25.1 each broker answers GET /v1/broker/pre_restart_probe with
// the partitions restarting it would affect, by risk (common-go rpadmin/api_broker.go,
// RestartRisks). A restart relies on its own broker's answer (FactRestartSafe) rather than on
// the whole cluster's health, so a partition under-replicated on other brokers no longer holds
// back a restart that does not touch it, as Redpanda's operator does since v26.2.1
// (redpanda-operator operator/CHANGELOG.md). A broker older than 25.1 answers 404: the health
// gate decides, as before.

// Risk is what one broker's pre_restart_probe says.
type Risk struct {
	// Asked: the probe of the broker about to restart was asked; NoProbe: it answered 404.
	Asked, NoProbe bool
	// Unavailable, Acks1DataLoss and FullAcksProduceUnavailable are the partitions at risk
	// that hold a restart back; RF1Offline those of RF=1 topics that go offline while it
	// restarts, which hold it back only with BlockRF1.
	Unavailable, Acks1DataLoss, FullAcksProduceUnavailable, RF1Offline []string
	// BlockRF1 is spec.rollout.blockRF1Offline.
	BlockRF1 bool
}

// Decides reports whether the probe, rather than the health gate, judges the restart.
func (r Risk) Decides() bool { return r.Asked && !r.NoProbe }

// Blocking names what holds the restart back, "" when nothing does.
func (r Risk) Blocking() string {
	var out []string
	add := func(what string, ps []string) {
		if len(ps) > 0 {
			out = append(out, fmt.Sprintf("%s %s", what, partitionList(ps)))
		}
	}
	add("partitions it would make unavailable:", r.Unavailable)
	add("partitions that may lose acks=1 data:", r.Acks1DataLoss)
	add("partitions that would refuse acks=all produce:", r.FullAcksProduceUnavailable)
	if r.BlockRF1 {
		add("RF=1 partitions that would go offline (spec.rollout.blockRF1Offline):", r.RF1Offline)
	}
	return strings.Join(out, "; ")
}

// RF1Notice names the RF=1 partitions a restart takes offline without being held back by them.
func (r Risk) RF1Notice() string {
	if r.BlockRF1 || len(r.RF1Offline) == 0 {
		return ""
	}
	return "; its RF=1 partitions go offline while it restarts: " + partitionList(r.RF1Offline)
}

// partitionList names at most five partitions and counts the rest.
func partitionList(ps []string) string {
	shown := ps[:min(len(ps), 5)]
	s := strings.Join(shown, ", ")
	if n := len(ps) - len(shown); n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}

// restartGateOpen reports whether the next restart may go ahead as far as partitions go: its
// broker's own probe shows nothing at risk, or, with no probe, the health gate is open.
func restartGateOpen(o Observation) bool {
	if o.SkipHealthGate {
		return true
	}
	if o.Rollout.Risk.Decides() {
		return o.Rollout.Risk.Blocking() == ""
	}
	return o.Health.Healthy()
}

// restartGateProblem says why restartGateOpen is false.
func restartGateProblem(o Observation) string {
	if o.Rollout.Risk.Decides() {
		return "its pre-restart probe reports " + o.Rollout.Risk.Blocking()
	}
	msg := "the cluster is not healthy: " + o.Health.String()
	if o.Rollout.Risk.NoProbe {
		msg += " (the broker has no pre-restart probe, Redpanda before 25.1, so the cluster's health decides)"
	}
	return msg
}
