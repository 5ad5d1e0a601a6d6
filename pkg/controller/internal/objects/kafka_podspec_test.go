package objects

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// kafkaCluster is a cluster with an external NodePort listener, TLS on both listeners, SASL and
// rack awareness.
func kafkaCluster() *v1alpha1.BrokerCluster {
	bc := newBrokerCluster(3)
	bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: "admin-user"}
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{
		TLS:  &v1alpha1.ListenerTLS{SecretName: "kafka-internal-cert"},
		SASL: &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SCRAMSHA512},
		External: &v1alpha1.ExternalListener{Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: 31000},
			TLS: &v1alpha1.ListenerTLS{SecretName: "kafka-external-cert", RequireClientAuth: true}},
	}
	bc.Spec.RackAwareness = &v1alpha1.RackAwarenessSpec{}
	return bc
}

func TestKafkaListenersTLSAndSASLPodSpec(t *testing.T) {
	bc := kafkaCluster()
	secrets := map[string]map[string]string{"admin-user": {"username": "operator", "password": "pw"}}
	sts := NewStatefulSet(bc, 3, 3, testDomain)
	spec := sts.Spec.Template.Spec
	cfg, initEnv := nodeConfigOf(t, sts, testName+"-2", secrets)
	rp := cfg.Redpanda

	wantListen := []brokerconfig.Listener{
		{Name: "internal", Address: "0.0.0.0", Port: 9092, AuthenticationMethod: "sasl"},
		{Name: "external", Address: "0.0.0.0", Port: 9094, AuthenticationMethod: "sasl"},
	}
	if !slices.Equal(rp.KafkaAPI, wantListen) {
		t.Errorf("kafka_api %+v, want %+v", rp.KafkaAPI, wantListen)
	}
	// The external address is the pod's own, written by the config container from its facts.
	if len(rp.AdvertisedKafkaAPI) != 2 || rp.AdvertisedKafkaAPI[1].Name != "external" || rp.AdvertisedKafkaAPI[1].Address != externalAddressPending {
		t.Errorf("advertised_kafka_api %+v, want the external entry second, left for the config container", rp.AdvertisedKafkaAPI)
	}
	if len(rp.KafkaAPITLS) != 2 || rp.KafkaAPITLS[0].CertFile != "/etc/tls/kafka/internal/tls.crt" ||
		!rp.KafkaAPITLS[1].RequireClientAuth || rp.KafkaAPITLS[1].TruststoreFile != "/etc/tls/kafka/external/ca.crt" {
		t.Errorf("kafka_api_tls %+v", rp.KafkaAPITLS)
	}

	script := strings.Join(spec.InitContainers[0].Command, " ")
	for _, want := range []string{
		`wait_for /etc/broker-operator/kafka-external-address`,
		`set 'redpanda.advertised_kafka_api[1]' "{\"name\":\"external\",\"address\":\"${ADDRESS%:*}\",\"port\":${ADDRESS##*:}}"`,
		`wait_for /etc/broker-operator/rack`,
		`set redpanda.rack "$(cat /etc/broker-operator/rack)"`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("config script lacks %q:\n%s", want, script)
		}
	}
	var facts *corev1.Volume
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == factsVolume {
			facts = &spec.Volumes[i]
		}
	}
	if facts == nil || facts.DownwardAPI == nil || len(facts.DownwardAPI.Items) != 2 ||
		facts.DownwardAPI.Items[0].FieldRef.FieldPath != "metadata.annotations['"+AnnotationExternalAddress+"']" ||
		facts.DownwardAPI.Items[1].FieldRef.FieldPath != "metadata.annotations['"+AnnotationRack+"']" {
		t.Errorf("facts volume %+v, want the two annotations as files", facts)
	}

	var boot map[string]any
	if err := yaml.UnmarshalStrict([]byte(initEnv[bootstrapVar]), &boot); err != nil {
		t.Fatal(err)
	}
	if boot["enable_sasl"] != true || !slices.Equal(boot["sasl_mechanisms"].([]any), []any{"SCRAM"}) || boot["enable_rack_awareness"] != true {
		t.Errorf("bootstrap %v, want SASL and rack awareness on", boot)
	}

	broker := spec.Containers[0]
	if env := expandFor(t, broker, testName+"-2", secrets); env[bootstrapUser] != "operator:pw:SCRAM-SHA-512" {
		t.Errorf("%s = %q, want the superuser with the spec's mechanism", bootstrapUser, env[bootstrapUser])
	}
	if !slices.ContainsFunc(broker.Ports, func(p corev1.ContainerPort) bool {
		return p.Name == "kafka-external" && p.ContainerPort == 9094 && p.HostPort == 0
	}) {
		t.Errorf("ports %+v lack the external listener's", broker.Ports)
	}
	mounts := map[string]string{}
	for _, m := range broker.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if mounts["kafka-tls-internal"] != "/etc/tls/kafka/internal" || mounts["kafka-tls-external"] != "/etc/tls/kafka/external" {
		t.Errorf("broker mounts %v, want each listener's certificate where kafka_api_tls names it", mounts)
	}
}

func TestAChangeOfHowAddressesAreMadeRollsTheBrokers(t *testing.T) {
	bc := kafkaCluster()
	before := NewStatefulSet(bc, 3, 3, testDomain)
	bc.Spec.Kafka.External.NodePort.BasePort = 32000
	if !SpecChanged(before, NewStatefulSet(bc, 3, 3, testDomain)) {
		t.Error("a new base port left the pod template as it was: the brokers would keep advertising the old ports")
	}
	bc = kafkaCluster()
	bc.Spec.Kafka.External.NodePort = nil
	bc.Spec.Kafka.External.Type = v1alpha1.ExternalLoadBalancer
	bc.Spec.Kafka.External.LoadBalancer = &v1alpha1.LoadBalancerListener{Annotations: map[string]string{"a": "b"}}
	lb := NewStatefulSet(bc, 3, 3, testDomain)
	bc.Spec.Kafka.External.LoadBalancer.Annotations["a"] = "c"
	if SpecChanged(lb, NewStatefulSet(bc, 3, 3, testDomain)) {
		t.Error("a Service annotation changed the pod template: the brokers would restart for nothing")
	}
}

func TestNoKafkaSettingsKeepThePodAsItWas(t *testing.T) {
	spec := NewStatefulSet(newBrokerCluster(3), 3, 3, testDomain).Spec.Template.Spec
	if script := strings.Join(spec.InitContainers[0].Command, " "); strings.Contains(script, "rpk") {
		t.Errorf("config script runs rpk without facts to write: %s", script)
	}
	if len(spec.Volumes) != 1 || len(spec.Containers[0].Ports) != 3 {
		t.Errorf("volumes %+v ports %+v: a plain cluster got more", spec.Volumes, spec.Containers[0].Ports)
	}
}
