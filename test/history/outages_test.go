package history_test

import (
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/test/history"
)

// A broker whose pod cannot start is unavailable after the operator took its maintenance mode
// off: restarting another broker then breaks OneUnavailable, as during maintenance. Calls are
// at 15, 25, 35 and 45 ns (calls: 10 ns apart, each 5 ns after its reconcile began).
func TestAnOutageCountsAsUnavailable(t *testing.T) {
	base := time.Now()
	at := func(ns int64) time.Time { return base.Add(time.Duration(ns)) }
	anchored := func(b *builder) []*builder { b.h.Anchor = base; return one(b) }
	restarts := func() *builder {
		return calls("p", "maintenance-on 1", "delete-pod 1", "maintenance-off 1", "maintenance-on 2")
	}
	outage := func(broker string, from, to int64) history.Input {
		return history.Input{Outages: []history.Outage{{Key: bcKey, Broker: broker, From: at(from), To: at(to), Why: "its pod cannot start"}}}
	}
	runRules(t, []ruleCase{
		{"planted: the next restart begins while the pod of the broker before cannot start", outage("1", 28, 60), anchored(restarts()),
			map[history.Guarantee]int{history.OneUnavailable: 1}},
		{"planted: an outage that has not ended", history.Input{Outages: []history.Outage{{Key: bcKey, Broker: "1", From: at(28), Why: "recovering"}}}, anchored(restarts()), map[history.Guarantee]int{history.OneUnavailable: 1}},
		{"the outage ended before the next restart", outage("1", 28, 40), anchored(restarts()), nil},
		{"the broker's own outage does not hold back its own calls", outage("2", 28, 60), anchored(restarts()), nil},
		{"another cluster's outage", history.Input{Outages: []history.Outage{{Key: history.Key{Resource: "brokerclusters", Namespace: "ns", Name: "other"}, Broker: "1", From: at(28), To: at(60)}}},
			anchored(restarts()), nil},
		{"a pod delete whose broker is not known is not judged", outage("1", 0, 60), anchored(calls("p", "delete-pod -1")), nil},
	})
}
