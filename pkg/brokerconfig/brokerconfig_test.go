package brokerconfig

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestParseValue(t *testing.T) {
	for in, want := range map[string]string{
		"true": "true", "134217728": "134217728", `["SCRAM"]`: `["SCRAM"]`, `"text"`: `"text"`,
		"plain text": `"plain text"`, "": `""`,
	} {
		if got := string(ParseValue(in)); got != want {
			t.Errorf("ParseValue(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	desired := map[string]string{
		"auto_create_topics_enabled": "true",      // brokers have it
		"log_segment_size":           "268435456", // brokers have another value
		"default_topic_replications": `"3"`,       // brokers have 3: same to Redpanda
		"enable_idempotence":         "false",     // not set on the brokers
	}
	desired["sasl_mechanisms"] = `["SCRAM"]` // Redpanda's default: in effect, not set
	set := map[string]json.RawMessage{
		"auto_create_topics_enabled": json.RawMessage("true"),
		"log_segment_size":           json.RawMessage("134217728"),
		"default_topic_replications": json.RawMessage("3"),
		"retention_bytes":            json.RawMessage("1000"), // applied before, gone from the spec
		"set_with_rpk":               json.RawMessage("1"),    // never the operator's
	}
	all := map[string]json.RawMessage{
		"sasl_mechanisms":       json.RawMessage(`["SCRAM"]`),
		"enable_idempotence":    json.RawMessage("true"),
		"enable_rack_awareness": json.RawMessage("false"), // applied before, back at its default
	}
	maps.Copy(all, set)
	d := Diff(desired, Current{All: all, Set: set}, []string{"retention_bytes", "auto_create_topics_enabled", "gone_already", "enable_rack_awareness"})
	wantUpsert := map[string]json.RawMessage{"log_segment_size": json.RawMessage("268435456"), "enable_idempotence": json.RawMessage("false")}
	if !reflect.DeepEqual(d.Upsert, wantUpsert) {
		t.Errorf("upsert = %s, want %s", fmtRaw(d.Upsert), fmtRaw(wantUpsert))
	}
	if !reflect.DeepEqual(d.Remove, []string{"retention_bytes"}) {
		t.Errorf("remove = %v, want [retention_bytes]: only what the operator applied and is still away from its default", d.Remove)
	}
	if !reflect.DeepEqual(d.Unchanged, []string{"auto_create_topics_enabled", "default_topic_replications", "sasl_mechanisms"}) {
		t.Errorf("unchanged = %v", d.Unchanged)
	}
	if d.Empty() {
		t.Error("Empty() on a diff with upserts")
	}
	if !Diff(map[string]string{"a": "1"}, Current{Set: map[string]json.RawMessage{"a": json.RawMessage("1")}}, nil).Empty() {
		t.Error("a spec the brokers have already gives a non-empty diff")
	}
}

func fmtRaw(m map[string]json.RawMessage) string { b, _ := json.Marshal(m); return string(b) }

func cluster(ext *v1alpha1.ExternalListener) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "ns"},
		Spec:       v1alpha1.BrokerClusterSpec{Kafka: &v1alpha1.KafkaSpec{External: ext}},
	}
}

func TestExternalAddressEachBrokerItsOwn(t *testing.T) {
	nodePort := &v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000}}
	pattern := &v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000, HostTemplate: "b{ordinal}.example.com"}}
	lb := &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer, Port: 9095}
	lbDNS := &v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer, LoadBalancer: &v1alpha1.LoadBalancerListener{HostTemplate: "kafka-{ordinal}.example.com"}}
	addrs := &v1alpha1.ExternalListener{Type: v1alpha1.ExternalAddresses, Addresses: []string{"a.example.com:9094", "b.example.com:19094"}}
	cases := []struct {
		name    string
		l       *v1alpha1.ExternalListener
		ordinal int32
		facts   BrokerFacts
		want    string
	}{
		{"node IP and own node port", nodePort, 2, BrokerFacts{HostIP: "10.0.0.7"}, "10.0.0.7:31002"},
		{"host pattern and own node port", pattern, 1, BrokerFacts{HostIP: "10.0.0.7"}, "b1.example.com:31001"},
		{"own load balancer", lb, 0, BrokerFacts{LoadBalancer: "203.0.113.9"}, "203.0.113.9:9095"},
		{"load balancer DNS pattern", lbDNS, 3, BrokerFacts{}, "kafka-3.example.com:9094"},
		{"user address", addrs, 1, BrokerFacts{}, "b.example.com:19094"},
	}
	for _, tc := range cases {
		got, err := ExternalAddress(tc.l, tc.ordinal, tc.facts)
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	if _, err := ExternalAddress(nodePort, 0, BrokerFacts{}); !errors.Is(err, ErrAddressNotReady) {
		t.Errorf("node port without host IP: %v, want ErrAddressNotReady", err)
	}
	if _, err := ExternalAddress(lb, 0, BrokerFacts{}); !errors.Is(err, ErrAddressNotReady) {
		t.Errorf("load balancer without address: %v, want ErrAddressNotReady", err)
	}
	if _, err := ExternalAddress(addrs, 2, BrokerFacts{}); err == nil || errors.Is(err, ErrAddressNotReady) {
		t.Errorf("ordinal past the addresses: %v, want a spec error", err)
	}
}

func TestExternalService(t *testing.T) {
	np := ExternalService(cluster(&v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000}}), 2)
	if np.Name != "kafka-2-external" || np.Spec.Type != corev1.ServiceTypeNodePort || np.Spec.Ports[0].NodePort != 31002 || np.Spec.Ports[0].Port != DefaultExternalPort {
		t.Errorf("NodePort service: %+v", np.Spec)
	}
	if np.Spec.Selector[PodNameLabel] != "kafka-2" || np.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
		t.Errorf("NodePort service must select pod kafka-2 only and keep traffic on its node: %+v", np.Spec)
	}
	withHost := ExternalService(cluster(&v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000, HostTemplate: "b{ordinal}.example.com"}}), 0)
	if withHost.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
		t.Errorf("with a host pattern traffic may arrive on any node: policy %s", withHost.Spec.ExternalTrafficPolicy)
	}
	lb := ExternalService(cluster(&v1alpha1.ExternalListener{Type: v1alpha1.ExternalLoadBalancer, Port: 9095, LoadBalancer: &v1alpha1.LoadBalancerListener{
		Annotations: map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"}, SourceRanges: []string{"192.0.2.0/24"}}}), 1)
	if lb.Spec.Type != corev1.ServiceTypeLoadBalancer || lb.Spec.Ports[0].Port != 9095 || lb.Spec.Ports[0].TargetPort.IntVal != 9095 ||
		lb.Annotations["service.beta.kubernetes.io/aws-load-balancer-type"] != "nlb" || !reflect.DeepEqual(lb.Spec.LoadBalancerSourceRanges, []string{"192.0.2.0/24"}) {
		t.Errorf("LoadBalancer service: %+v %v", lb.Spec, lb.Annotations)
	}
	if s := ExternalService(cluster(&v1alpha1.ExternalListener{Type: v1alpha1.ExternalAddresses, Addresses: []string{"a:1"}}), 0); s != nil {
		t.Errorf("type Addresses made a Service: %+v", s)
	}
	if s := ExternalService(cluster(nil), 0); s != nil {
		t.Errorf("no external listener made a Service")
	}
	svc := &corev1.Service{Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}}}}
	if got := LoadBalancerAddress(svc); got != "lb.example.com" {
		t.Errorf("LoadBalancerAddress = %q", got)
	}
}

func TestKafkaNodeConfig(t *testing.T) {
	bc := cluster(&v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000},
		TLS: &v1alpha1.ListenerTLS{SecretName: "ext", RequireClientAuth: true}})
	bc.Spec.Kafka.TLS = &v1alpha1.ListenerTLS{SecretName: "int"}
	bc.Spec.Kafka.SASL = &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SCRAMSHA512}
	bc.Spec.RackAwareness = &v1alpha1.RackAwarenessSpec{}
	cfg := KafkaNodeConfig(bc, "kafka-1.kafka.ns.svc.cluster.local", &Address{Host: "10.0.0.7", Port: 31001}, "zone-a")
	want := KafkaConfig{
		KafkaAPI: []Listener{
			{Name: "internal", Address: "0.0.0.0", Port: 9092, AuthenticationMethod: "sasl"},
			{Name: "external", Address: "0.0.0.0", Port: 9094, AuthenticationMethod: "sasl"},
		},
		AdvertisedKafkaAPI: []Listener{
			{Name: "internal", Address: "kafka-1.kafka.ns.svc.cluster.local", Port: 9092},
			{Name: "external", Address: "10.0.0.7", Port: 31001},
		},
		KafkaAPITLS: []ListenerTLS{
			{Name: "internal", Enabled: true, CertFile: "/etc/tls/kafka/internal/tls.crt", KeyFile: "/etc/tls/kafka/internal/tls.key"},
			{Name: "external", Enabled: true, CertFile: "/etc/tls/kafka/external/tls.crt", KeyFile: "/etc/tls/kafka/external/tls.key", TruststoreFile: "/etc/tls/kafka/external/ca.crt", RequireClientAuth: true},
		},
		Rack: "zone-a",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("KafkaNodeConfig =\n%+v\nwant\n%+v", cfg, want)
	}
	plain := KafkaNodeConfig(cluster(nil), "h", nil, "zone-a")
	if len(plain.KafkaAPI) != 1 || plain.KafkaAPI[0].AuthenticationMethod != "" || plain.KafkaAPITLS != nil || plain.Rack != "" {
		t.Errorf("a cluster without Kafka settings got %+v; want the internal plaintext listener only", plain)
	}
	if got := ClusterProperties(bc); !reflect.DeepEqual(got, map[string]any{"enable_sasl": true, "sasl_mechanisms": []string{"SCRAM"}, "enable_rack_awareness": true}) {
		t.Errorf("ClusterProperties = %v", got)
	}
	if got := BootstrapUser(bc, "U", "P"); got != "$(U):$(P):SCRAM-SHA-512" {
		t.Errorf("BootstrapUser = %q", got)
	}
}

func TestRack(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{DefaultRackLabel: "zone-a", "rack": "r7"}}}
	if r, err := Rack(&v1alpha1.RackAwarenessSpec{}, node); err != nil || r != "zone-a" {
		t.Errorf("default label: %q, %v", r, err)
	}
	if r, err := Rack(&v1alpha1.RackAwarenessSpec{NodeLabel: "rack"}, node); err != nil || r != "r7" {
		t.Errorf("custom label: %q, %v", r, err)
	}
	if _, err := Rack(&v1alpha1.RackAwarenessSpec{NodeLabel: "missing"}, node); err == nil {
		t.Error("a node without the label gave no error")
	}
}

func TestDesiredAddsThePropertiesTheSpecImplies(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{
		ClusterConfig: map[string]string{"log_segment_size": "268435456"},
		Kafka:         &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{}},
		RackAwareness: &v1alpha1.RackAwarenessSpec{},
	}}
	want := map[string]string{
		"log_segment_size": "268435456", "enable_sasl": "true", "sasl_mechanisms": `["SCRAM"]`, "enable_rack_awareness": "true",
	}
	if got := Desired(bc); !reflect.DeepEqual(got, want) {
		t.Errorf("Desired = %v, want %v", got, want)
	}
	if len(bc.Spec.ClusterConfig) != 1 {
		t.Errorf("Desired changed spec.clusterConfig: %v", bc.Spec.ClusterConfig)
	}
	if got := Desired(&v1alpha1.BrokerCluster{}); len(got) != 0 {
		t.Errorf("Desired of an empty spec = %v, want nothing", got)
	}
}
