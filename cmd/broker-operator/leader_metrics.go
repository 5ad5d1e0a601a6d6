package main

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/leaderelection"
)

// electionName is the leader election's name: the label of leader_election_master_status.
const electionName = "broker-operator"

// client-go takes one leader election metrics provider per process, and only the first one set
// counts; the gauge is made once and registered in each registry that asks for it.
var (
	leaderMetricsOnce sync.Once
	leaderStatus      *prometheus.GaugeVec
)

// registerLeaderMetrics exports leader_election_master_status{name}, as kube-controller-manager
// does: 1 while this process holds the Lease, 0 otherwise. Summed over the replicas it is 1 while
// the Lease is renewed; 0 for longer than the lease duration means no replica leads.
func registerLeaderMetrics(reg prometheus.Registerer) {
	leaderMetricsOnce.Do(func() {
		leaderStatus = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "leader_election_master_status",
			Help: "1 while this replica holds the leader election Lease of the named election, 0 otherwise.",
		}, []string{"name"})
		leaderelection.SetProvider(leaderMetricsProvider{})
	})
	reg.MustRegister(leaderStatus)
}

// standBy sets the gauge to 0 for an election this process takes part in, so that a standby
// exports the series too.
func standBy(name string) { leaderStatus.WithLabelValues(name).Set(0) }

type leaderMetricsProvider struct{}

func (leaderMetricsProvider) NewLeaderMetric() leaderelection.LeaderMetric { return leaderMetric{} }

type leaderMetric struct{}

func (leaderMetric) On(name string)           { leaderStatus.WithLabelValues(name).Set(1) }
func (leaderMetric) Off(name string)          { leaderStatus.WithLabelValues(name).Set(0) }
func (leaderMetric) SlowpathExercised(string) {}
