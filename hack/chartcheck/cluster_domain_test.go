package chartcheck

import (
	"reflect"
	"slices"
	"testing"
)

// clusterDomain reaches the operator's --cluster-domain, the names the PodMonitor scrapes over
// TLS and the eviction webhook's certificate: a cluster whose DNS domain is not cluster.local
// names its brokers and the webhook's Service the same way everywhere.
func TestClusterDomainReachesEveryName(t *testing.T) {
	objs, err := renderChart(map[string]any{
		"clusterDomain":    "corp.example",
		"brokerMonitoring": brokerMonitoringTLS,
		"evictionWebhook":  map[string]any{"enabled": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, c := deployment(t, objs); !slices.Contains(args(c), "--cluster-domain=corp.example") {
		t.Errorf("args %v, want --cluster-domain=corp.example", args(c))
	}
	_, ep := podMonitor(t, map[string]any{"clusterDomain": "corp.example", "brokerMonitoring": brokerMonitoringTLS})
	if r := relabeling(t, ep, "__address__"); r == nil || r["replacement"] != "$1-$2.$1.$3.svc.corp.example:$4" {
		t.Errorf("address relabeling %v, want the replacement $1-$2.$1.$3.svc.corp.example:$4", r)
	}
	cert := one(t, objs, "Certificate")
	want := []any{webhookService + "." + releaseNamespace + ".svc", webhookService + "." + releaseNamespace + ".svc.corp.example"}
	if got := dig(cert, "spec", "dnsNames"); !reflect.DeepEqual(got, want) {
		t.Errorf("webhook certificate dnsNames %v, want %v", got, want)
	}
}
