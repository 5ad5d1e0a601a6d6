package objects

import (
	"slices"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// otherDomain is a cluster DNS domain other than Kubernetes' default.
const otherDomain = "corp.example"

// In another cluster domain every name a broker is known by ends in it: its advertised RPC and
// Kafka addresses, rpk's admin address, the seeds in its template, a pool's founding hosts and
// the names its certificate holds. None ends in cluster.local.
func TestNamesFollowTheClusterDomain(t *testing.T) {
	bc := newBrokerCluster(3)
	sts := NewStatefulSet(bc, 3, 3, otherDomain)
	cfg, _ := nodeConfigOf(t, sts, testName+"-1", nil)
	rp := cfg.Redpanda
	host := testName + "-1." + testName + "." + testNamespace + ".svc." + otherDomain
	if rp.AdvertisedRPCAPI.Address != host || rp.AdvertisedKafkaAPI[0].Address != host || cfg.RPK.AdminAPI.Addresses[0] != host+":9644" {
		t.Errorf("advertised %+v %+v, rpk %v; want %s", rp.AdvertisedRPCAPI, rp.AdvertisedKafkaAPI, cfg.RPK.AdminAPI.Addresses, host)
	}
	if len(rp.SeedServers) != 3 || rp.SeedServers[1].Host.Address != host {
		t.Errorf("seeds %+v, want the pods' names in %s", rp.SeedServers, otherDomain)
	}
	if strings.Contains(envValue(sts.Spec.Template.Spec.InitContainers[0], nodeConfigVar), "cluster.local") {
		t.Errorf("the node config still names cluster.local")
	}

	pooled := withBluePool(newBrokerCluster(3))
	if hosts := FoundingHosts(pooled, testName+"-blue", 1, otherDomain); !slices.Equal(hosts, []string{testName + "-blue-0." + testName + "-blue." + testNamespace + ".svc." + otherDomain}) {
		t.Errorf("founding hosts %v", hosts)
	}

	bc.Spec.Kafka = &v1alpha1.KafkaSpec{TLS: &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "ca"}}}
	certs := Certificates(bc, 3, otherDomain)
	if len(certs) != 1 {
		t.Fatalf("certificates %v", certs)
	}
	names, _ := certs[0].Object.Object["spec"].(map[string]any)["dnsNames"].([]any)
	if len(names) == 0 || names[0] != testName+"."+testNamespace+".svc."+otherDomain || names[1] != "*."+testName+"."+testNamespace+".svc."+otherDomain {
		t.Errorf("certificate names %v", names)
	}
}
