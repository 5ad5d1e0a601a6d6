package main

import "k8s.io/client-go/tools/record"

// The event budget is sized for the story of one large operation on one BrokerCluster: a
// scale-down followed by a rolling restart of a cluster of up to eventStoryBrokers brokers, each
// broker's decommission or restart told by about eventsPerBrokerStep events (its start and
// finish, and a gate that closes and opens).
const (
	eventStoryBrokers   = 32
	eventsPerBrokerStep = 4
)

// eventCorrelatorOptions sizes the event broadcaster's correlator for an operator that runs for
// months. client-go's default lets 25 events through per object and event type, then one every
// 5 minutes, and folds a reason's 10th distinct message in 10 minutes into one "(combined from
// similar events)" event: one scale-down of three brokers used it up, and the next operations left
// no event. Here, per BrokerCluster and event type (Normal and Warning have separate budgets):
//
//   - BurstSize 256 (eventStoryBrokers × eventsPerBrokerStep × 2 operations): a scale-down and a
//     full rollout of a 32-broker cluster all pass, even when the steps come fast.
//   - QPS 0.1: the budget refills one event every 10 s, the pace of the fastest real step (a
//     broker restarting and rejoining, or a drain moving partitions, takes longer), so a story
//     told at a real pace never runs dry; an empty budget is full again after 43 minutes. A
//     BrokerCluster stuck in a loop still writes at most one Event every 10 s, 360 an hour, which
//     the apiserver's one-hour Event TTL bounds.
//   - MaxEvents 64: a reason (for example a restart's start) can carry 63 distinct messages, one
//     per broker of the 32-broker cluster twice over, before the aggregator folds the next ones
//     into one Event; the window closes after MaxIntervalInSeconds without that reason. An error
//     whose message changes on every retry is still folded into one Event.
//   - MaxIntervalInSeconds 600 and LRUCacheSize 4096 as client-go: the cache bounds memory
//     however long the operator runs; evicting an entry only forgets an old event.
//
// Identical events are counted on one Event (a patch of its count) whatever these values.
func eventCorrelatorOptions() record.CorrelatorOptions {
	return record.CorrelatorOptions{
		BurstSize:            eventStoryBrokers * eventsPerBrokerStep * 2,
		QPS:                  0.1,
		MaxEvents:            2 * eventStoryBrokers,
		MaxIntervalInSeconds: 600,
		LRUCacheSize:         4096,
	}
}
