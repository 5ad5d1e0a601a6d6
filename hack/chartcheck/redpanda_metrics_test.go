package chartcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// redpandaMetric is a series Redpanda serves on /public_metrics: the admin server's route whose
// names take the prefix "redpanda_" (redpanda-data/redpanda src/v/redpanda/admin/server.cc,
// configure_metrics_route) followed by the group, sanitised by prometheus_sanitize::metrics_name
// (":" becomes "_"), and the metric's name.
type redpandaMetric struct {
	// source is the file of redpanda-data/redpanda that defines it; the alert's comment in
	// templates/prometheus_rule.yaml and its section of docs/alerts.md cite it.
	source string
	// labels are the labels Redpanda gives it; shard is aggregated away on /public_metrics.
	labels []string
}

// redpandaMetrics are the only Redpanda series the broker alerts and the brokers dashboard may
// name.
var redpandaMetrics = map[string]redpandaMetric{
	// group "kafka", replicated_partition_probe::setup_public_metrics; 0 on followers.
	"redpanda_kafka_under_replicated_replicas": {"src/v/cluster/partition_probe.cc", []string{"redpanda_namespace", "redpanda_topic", "redpanda_partition"}},
	// group "kafka", the same function: per topic, the partition label aggregated away.
	"redpanda_kafka_request_bytes_total": {"src/v/cluster/partition_probe.cc", []string{"redpanda_request", "redpanda_namespace", "redpanda_topic"}},
	// group "cluster", controller_probe::setup_metrics; served by the controller leader only.
	"redpanda_cluster_unavailable_partitions": {"src/v/cluster/controller_probe.cc", nil},
	// group "storage:disk", node_probe::setup_node_metrics: the data disk.
	"redpanda_storage_disk_free_bytes":       {"src/v/storage/probe.cc", nil},
	"redpanda_storage_disk_total_bytes":      {"src/v/storage/probe.cc", nil},
	"redpanda_storage_disk_free_space_alert": {"src/v/storage/probe.cc", nil},
	// group "tls", tls_certificate_probe::setup_metrics: area is the service (kafka, admin, rpc,
	// ...), detail the listener's name.
	"redpanda_tls_certificate_expires_at_timestamp_seconds": {"src/v/net/probes.cc", []string{"area", "detail"}},
	"redpanda_tls_truststore_expires_at_timestamp_seconds":  {"src/v/net/probes.cc", []string{"area", "detail"}},
	// group "kafka", latency_probe::setup_public_metrics: a histogram.
	"redpanda_kafka_request_latency_seconds_bucket": {"src/v/kafka/server/latency_probe.h", []string{"redpanda_request", "le"}},
}

// targetLabels are the labels every scraped broker series carries besides its own:
// prometheus-operator's for a PodMonitor target (namespace, pod, container, endpoint, job),
// Prometheus' instance, and the brokercluster and pool the chart's PodMonitor adds.
var targetLabels = []string{"namespace", "pod", "container", "endpoint", "job", "instance", "brokercluster", "pool"}

// redpandaQuery is what a broker alert or panel expression selects.
type redpandaQuery struct {
	metrics   []string            // the metric names, each in redpandaMetrics
	selectors [][]*labels.Matcher // every selector, for the job check
}

// checkRedpandaQuery parses expr and checks that it names only metrics of redpandaMetrics, and
// groups, matches and filters only on labels those metrics or their targets carry, or that a
// label_replace in it adds.
func checkRedpandaQuery(expr string) (redpandaQuery, error) {
	parsed, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return redpandaQuery{}, fmt.Errorf("does not parse: %w", err)
	}
	q := redpandaQuery{selectors: parser.ExtractSelectors(parsed)}
	known := map[string]bool{}
	for _, l := range targetLabels {
		known[l] = true
	}
	var used []string
	var problems []string
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			m, ok := redpandaMetrics[n.Name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%q is not a cited Redpanda metric", n.Name))
				return nil
			}
			q.metrics = append(q.metrics, n.Name)
			for _, l := range m.labels {
				known[l] = true
			}
			for _, matcher := range n.LabelMatchers {
				if matcher.Name != labels.MetricName {
					used = append(used, matcher.Name)
				}
			}
		case *parser.AggregateExpr:
			used = append(used, n.Grouping...)
		case *parser.BinaryExpr:
			if n.VectorMatching != nil {
				used = append(used, n.VectorMatching.MatchingLabels...)
			}
		case *parser.Call:
			if n.Func.Name == "label_replace" {
				known[n.Args[1].(*parser.StringLiteral).Val] = true
			}
		}
		return nil
	})
	for _, l := range used {
		if !known[l] {
			problems = append(problems, fmt.Sprintf("label %q is on none of its series (known: %v)", l, slices.Sorted(maps.Keys(known))))
		}
	}
	if len(q.metrics) == 0 {
		problems = append(problems, "selects no metric")
	}
	slices.Sort(q.metrics)
	q.metrics = slices.Compact(q.metrics)
	if len(problems) > 0 {
		return q, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return q, nil
}
