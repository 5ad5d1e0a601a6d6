package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// clusterStatusCollector exports each BrokerCluster's conditions, as kube-state-metrics exports
// a Deployment's, and when its next maintenance window opens. It reads the clusters from the
// controller's caches (the overlaid view, so the controller's own status writes count at once)
// at every scrape and keeps nothing: a condition whose status or reason changed, or a cluster
// that is gone, has no series left to forget, whichever code wrote the status.
type clusterStatusCollector struct {
	c          *Controller
	condition  *prometheus.Desc
	nextWindow *prometheus.Desc
}

func newClusterStatusCollector(c *Controller) *clusterStatusCollector {
	return &clusterStatusCollector{
		c: c,
		condition: prometheus.NewDesc("broker_operator_cluster_condition",
			"Each condition of each BrokerCluster's status, by type, status (True, False, Unknown) and reason: one series of value 1 per condition.",
			[]string{"namespace", "name", "type", "status", "reason"}, nil),
		nextWindow: prometheus.NewDesc("broker_operator_cluster_next_maintenance_window_timestamp_seconds",
			"When the maintenance window a BrokerCluster's next step waits for opens (status.nextMaintenanceWindow, Unix seconds); no series while no step waits for one.",
			[]string{"namespace", "name"}, nil),
	}
}

func (s *clusterStatusCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.condition
	ch <- s.nextWindow
}

func (s *clusterStatusCollector) Collect(ch chan<- prometheus.Metric) {
	// Stopped informers no longer follow the API server: what they hold would be stale.
	if !s.c.serving.Load() {
		return
	}
	for _, nc := range s.c.caches {
		clusters, err := nc.overlaid.brokerClusters.List(labels.Everything())
		if err != nil {
			utilruntime.HandleError(err)
			continue
		}
		for _, bc := range clusters {
			for _, cond := range bc.Status.Conditions {
				ch <- prometheus.MustNewConstMetric(s.condition, prometheus.GaugeValue, 1,
					bc.Namespace, bc.Name, cond.Type, string(cond.Status), cond.Reason)
			}
			if w := bc.Status.NextMaintenanceWindow; w != nil {
				ch <- prometheus.MustNewConstMetric(s.nextWindow, prometheus.GaugeValue, float64(w.Unix()), bc.Namespace, bc.Name)
			}
		}
	}
}
