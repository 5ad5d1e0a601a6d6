package objects

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// A plain cluster that turns both HTTP APIs on: each listens on its default port without
// authentication, the proxy advertises the pod's stable name, and both dial Kafka on it.
func TestHTTPAPIsOnAPlainCluster(t *testing.T) {
	bc := newBrokerCluster(3)
	bc.Spec.SchemaRegistry = &v1alpha1.SchemaRegistrySpec{}
	bc.Spec.HTTPProxy = &v1alpha1.HTTPProxySpec{}
	sts := NewStatefulSet(bc, 3, 3, testDomain)
	cfg, _ := nodeConfigOf(t, sts, testName+"-1", nil)
	host := testName + "-1." + testName + "." + testNamespace + ".svc.cluster.local"

	if cfg.SchemaRegistry == nil || !slices.Equal(cfg.SchemaRegistry.SchemaRegistryAPI, []brokerconfig.RESTListener{
		{Name: "internal", Address: "0.0.0.0", Port: 8081, AuthenticationMethod: "none"}}) || cfg.SchemaRegistry.SchemaRegistryAPITLS != nil {
		t.Errorf("schema_registry %+v, want the internal listener on 8081 without TLS or authentication", cfg.SchemaRegistry)
	}
	if cfg.Pandaproxy == nil || !slices.Equal(cfg.Pandaproxy.PandaproxyAPI, []brokerconfig.RESTListener{
		{Name: "internal", Address: "0.0.0.0", Port: 8082, AuthenticationMethod: "none"}}) ||
		!slices.Equal(cfg.Pandaproxy.AdvertisedPandaproxyAPI, []brokerconfig.Listener{{Name: "internal", Address: host, Port: 8082}}) {
		t.Errorf("pandaproxy %+v, want the internal listener on 8082 advertising %s", cfg.Pandaproxy, host)
	}
	for name, c := range map[string]*brokerconfig.KafkaClient{"schema_registry_client": cfg.SchemaRegistryClient, "pandaproxy_client": cfg.PandaproxyClient} {
		if c == nil || !slices.Equal(c.Brokers, []brokerconfig.SocketAddress{{Address: host, Port: 9092}}) || c.BrokerTLS != nil {
			t.Errorf("%s %+v, want the pod's own Kafka listener, plaintext", name, c)
		}
	}

	ports := map[string]int32{}
	for _, p := range sts.Spec.Template.Spec.Containers[0].Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["schema-registry"] != 8081 || ports["http-proxy"] != 8082 || len(ports) != 5 {
		t.Errorf("container ports %v, want schema-registry 8081 and http-proxy 8082 beside the three", ports)
	}
	svc := map[string]int32{}
	for _, p := range NewService(bc).Spec.Ports {
		svc[p.Name] = p.Port
	}
	if svc["schema-registry"] != 8081 || svc["http-proxy"] != 8082 {
		t.Errorf("headless Service ports %v, want both APIs", svc)
	}
	if NewExternalService(bc, 0) != nil {
		t.Error("an external Service without spec.kafka.external")
	}
}

// httpCluster is kafkaCluster (TLS, SASL, a NodePort external listener) with both HTTP APIs,
// each with an external listener; the Schema Registry's certificates come from cert-manager.
func httpCluster() *v1alpha1.BrokerCluster {
	bc := kafkaCluster()
	issuer := &v1alpha1.IssuerReference{Name: "ca", Kind: "ClusterIssuer"}
	bc.Spec.Kafka.External.NodePort.HostTemplate = "broker-{ordinal}.example.com"
	bc.Spec.SchemaRegistry = &v1alpha1.SchemaRegistrySpec{
		Port: 8081, TLS: &v1alpha1.ListenerTLS{IssuerRef: issuer},
		External: &v1alpha1.HTTPExternalListener{NodePort: &v1alpha1.HTTPNodePort{BasePort: 31500}, TLS: &v1alpha1.ListenerTLS{IssuerRef: issuer}},
	}
	bc.Spec.HTTPProxy = &v1alpha1.HTTPProxySpec{
		Port: 8082, AuthenticationMethod: v1alpha1.HTTPAuthNone,
		External: &v1alpha1.HTTPExternalListener{Port: 8090, NodePort: &v1alpha1.HTTPNodePort{BasePort: 31600}},
	}
	return bc
}

func TestHTTPAPIsWithTLSSASLAndExternalListeners(t *testing.T) {
	bc := httpCluster()
	secrets := map[string]map[string]string{"admin-user": {"username": "operator", "password": "pw"}}
	sts := NewStatefulSet(bc, 3, 3, testDomain)
	spec := sts.Spec.Template.Spec
	cfg, _ := nodeConfigOf(t, sts, testName+"-2", secrets)

	sr := cfg.SchemaRegistry
	if sr == nil || !slices.Equal(sr.SchemaRegistryAPI, []brokerconfig.RESTListener{
		{Name: "internal", Address: "0.0.0.0", Port: 8081, AuthenticationMethod: "http_basic"},
		{Name: "external", Address: "0.0.0.0", Port: 8084, AuthenticationMethod: "http_basic"},
	}) {
		t.Errorf("schema_registry_api %+v, want both listeners with http_basic, as SASL is on", sr)
	}
	if sr == nil || len(sr.SchemaRegistryAPITLS) != 2 || sr.SchemaRegistryAPITLS[0].CertFile != "/etc/tls/schema-registry/internal/tls.crt" ||
		sr.SchemaRegistryAPITLS[1].KeyFile != "/etc/tls/schema-registry/external/tls.key" {
		t.Errorf("schema_registry_api_tls %+v", sr)
	}
	pp := cfg.Pandaproxy
	if pp == nil || pp.PandaproxyAPI[0].AuthenticationMethod != "none" || len(pp.PandaproxyAPI) != 2 || pp.PandaproxyAPI[1].Port != 8090 ||
		len(pp.AdvertisedPandaproxyAPI) != 2 || pp.AdvertisedPandaproxyAPI[1] != (brokerconfig.Listener{Name: "external", Address: externalAddressPending, Port: 8090}) {
		t.Errorf("pandaproxy %+v, want the spec's none, the external listener on 8090 and its address left for the config container", pp)
	}
	// Kafka's internal listener has TLS without client certificates: the clients trust its CA.
	want := &brokerconfig.ClientTLS{Enabled: true, TruststoreFile: "/etc/tls/kafka/internal/ca.crt"}
	if c := cfg.PandaproxyClient; c == nil || c.BrokerTLS == nil || *c.BrokerTLS != *want {
		t.Errorf("pandaproxy_client %+v, want broker_tls %+v", c, want)
	}

	script := strings.Join(spec.InitContainers[0].Command, " ")
	for _, want := range []string{
		`wait_for /etc/broker-operator/http-proxy-external-address`,
		`set 'pandaproxy.advertised_pandaproxy_api[1]' "{\"name\":\"external\",\"address\":\"${ADDRESS%:*}\",\"port\":${ADDRESS##*:}}"`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("config script lacks %q:\n%s", want, script)
		}
	}
	mounts := map[string]string{}
	for _, m := range spec.Containers[0].VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if mounts["schema-registry-tls-internal"] != "/etc/tls/schema-registry/internal" || mounts["schema-registry-tls-external"] != "/etc/tls/schema-registry/external" ||
		mounts["kafka-tls-internal"] != "/etc/tls/kafka/internal" {
		t.Errorf("mounts %v", mounts)
	}
	secretOf := map[string]string{}
	for _, v := range spec.Volumes {
		if v.Secret != nil {
			secretOf[v.Name] = v.Secret.SecretName
		}
	}
	if secretOf["schema-registry-tls-external"] != testName+"-schema-registry-external-tls" {
		t.Errorf("volumes %v, want the Secret cert-manager writes for the Certificate", secretOf)
	}
	ports := map[string]int32{}
	for _, p := range spec.Containers[0].Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["sr-external"] != 8084 || ports["proxy-external"] != 8090 {
		t.Errorf("container ports %v, want the external listeners'", ports)
	}

	svc := NewExternalService(bc, 2)
	nodePorts := map[string]int32{}
	for _, p := range svc.Spec.Ports {
		nodePorts[p.Name] = p.NodePort
	}
	if nodePorts["kafka-external"] != 31002 || nodePorts["schema-registry-external"] != 31502 || nodePorts["http-proxy-external"] != 31602 {
		t.Errorf("node ports of broker 2's Service %v, want each listener's basePort + 2", nodePorts)
	}

	var names []string
	for _, c := range Certificates(bc, 3, testDomain) {
		names = append(names, c.Object.GetName())
	}
	if !slices.Equal(names, []string{testName + "-schema-registry-internal-tls", testName + "-schema-registry-external-tls"}) {
		t.Errorf("Certificates %v, want the Schema Registry's two", names)
	}
}

// Changing how the proxy's external addresses are made rolls the brokers, as for Kafka's.
func TestAChangeOfTheProxyNodePortsRollsTheBrokers(t *testing.T) {
	bc := httpCluster()
	before := NewStatefulSet(bc, 3, 3, testDomain)
	bc.Spec.HTTPProxy.External.NodePort.BasePort = 31700
	if !SpecChanged(before, NewStatefulSet(bc, 3, 3, testDomain)) {
		t.Error("a new proxy base port left the pod template as it was: the brokers would keep advertising the old ports")
	}
}

// Upgrading the operator changes no Service of a cluster without the HTTP APIs: their hashes
// are those the operator wrote before the fields existed.
func TestServicesWithoutHTTPAPIsHashAsBefore(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  *corev1.Service
		want string
	}{
		{"headless", NewService(newBrokerCluster(3)), "64e2b4099a97aceb"},
		{"external", NewExternalService(kafkaCluster(), 1), "436b8f969bfbcd4d"},
	} {
		if got := tc.svc.Annotations[AnnotationSpecHash]; got != tc.want {
			t.Errorf("%s: Service hash %s, want %s", tc.name, got, tc.want)
		}
	}
}
