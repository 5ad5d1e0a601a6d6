package objects

import (
	"os"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The Helm chart's PodMonitor for the brokers' /public_metrics names the pods' labels, the
// admin port's name and the stable DNS name literally; hack/chartcheck checks what it renders,
// and this holds those literals to what the operator's pods carry.
const (
	brokerPodMonitor = "../../../../charts/broker-operator/templates/broker_pod_monitor.yaml"
	chartValues      = "../../../../charts/broker-operator/values.yaml"
)

func TestChartPodMonitorSelectsBrokerPods(t *testing.T) {
	data, err := os.ReadFile(brokerPodMonitor)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := string(data)

	bc := newBrokerCluster(3)
	bc.Spec.AdminAPI.Port = 9650 // the port's name, not its number, is what the PodMonitor reads
	sts := NewStatefulSet(bc, 3, 3, testDomain)
	podLabels := sts.Spec.Template.Labels
	for _, key := range []string{LabelName, LabelManagedBy} {
		if want := key + ": " + podLabels[key]; podLabels[key] == "" || !strings.Contains(tmpl, want) {
			t.Errorf("%s does not select the pods' label %q", brokerPodMonitor, want)
		}
	}
	// Prometheus' pod discovery names a pod label __meta_kubernetes_pod_label_ and the label
	// with every character that is not a letter, digit or _ made a _.
	instance := "__meta_kubernetes_pod_label_" + strings.NewReplacer(".", "_", "/", "_", "-", "_").Replace(LabelInstance)
	if podLabels[LabelInstance] != bc.Name || !strings.Contains(tmpl, instance) {
		t.Errorf("%s does not read the cluster's name from %s", brokerPodMonitor, instance)
	}

	var adminPort string
	for _, p := range sts.Spec.Template.Spec.Containers[0].Ports {
		if p.ContainerPort == AdminPort(bc) {
			adminPort = p.Name
		}
	}
	if adminPort == "" || !strings.Contains(tmpl, "- port: "+adminPort+"\n") {
		t.Errorf("%s does not scrape the container port %q that serves the admin API", brokerPodMonitor, adminPort)
	}

	// Over TLS it scrapes each pod at the name its admin certificate must hold.
	// $1-$2 is the pod's name (<set>-<ordinal>), $1 its StatefulSet's and headless Service's
	// (<cluster>, or <cluster>-<pool> for a pool's pod), $3 the namespace. The chart's
	// clusterDomain is the operator's --cluster-domain (hack/chartcheck), and its default the
	// operator's.
	if want := "$1-$2.$1.$3.svc.{{ .Values.clusterDomain }}:$4"; !strings.Contains(tmpl, want) {
		t.Errorf("%s does not scrape %s, the pods' stable names (admin.StableHostName)", brokerPodMonitor, want)
	}
	bc.Spec.Pools = []v1alpha1.BrokerPool{{Name: "blue", Replicas: 1}}
	pool, _ := NewPoolStatefulSet(bc, "blue", 1, testDomain)
	if pool.Spec.ServiceName != pool.Name || !strings.HasPrefix(pool.Name, bc.Name+"-") {
		t.Errorf("a pool's pods' subdomain is %q, not their StatefulSet's name %q the PodMonitor takes from the pod's", pool.Spec.ServiceName, pool.Name)
	}
	values, err := os.ReadFile(chartValues)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nclusterDomain: " + admin.DefaultClusterDomain + "\n"; !strings.Contains(string(values), want) {
		t.Errorf("%s does not default clusterDomain to %s", chartValues, admin.DefaultClusterDomain)
	}
	if sts.Spec.ServiceName != bc.Name {
		t.Errorf("the pods' subdomain is %q, not the cluster's name the PodMonitor puts second", sts.Spec.ServiceName)
	}
}
