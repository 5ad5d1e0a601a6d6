package controller

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// The HTTP Proxy's external listener rides on each broker's Kafka Service: a port of its own,
// node port basePort + ordinal, and an address on the broker's node IP recorded on its pod for
// the config container, as Kafka's is.
func TestHTTPProxyAdvertisesEachBrokersOwnNodePort(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	bc := nodePortCluster(3)
	bc.Spec.HTTPProxy = &v1alpha1.HTTPProxySpec{External: &v1alpha1.HTTPExternalListener{NodePort: &v1alpha1.HTTPNodePort{BasePort: 31600}}}
	bc.Spec.SchemaRegistry = &v1alpha1.SchemaRegistrySpec{}
	h.bringUpCluster(bc)

	if n := len(h.pods()); n != 3 {
		t.Fatalf("%d pods, want 3", n)
	}
	for _, p := range h.pods() {
		ordinal, _ := brokerpod.Ordinal(&p, testName)
		if got, want := p.Annotations[AnnotationHTTPProxyExternalAddress], fmt.Sprintf("%s:%d", playNodeIP(ordinal), 31600+ordinal); got != want {
			t.Errorf("pod %s advertises %q for the HTTP Proxy, want %s", p.Name, got, want)
		}
		svc, err := h.kube.CoreV1().Services(testNamespace).Get(h.ctx, fmt.Sprintf("%s-%d-external", testName, ordinal), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ports := map[string]int32{}
		for _, sp := range svc.Spec.Ports {
			ports[sp.Name] = sp.NodePort
		}
		if ports["kafka-external"] != int32(31000+ordinal) || ports["http-proxy-external"] != int32(31600+ordinal) || len(ports) != 2 {
			t.Errorf("Service %s node ports %v, want Kafka's and the HTTP Proxy's", svc.Name, ports)
		}
	}
	headless, err := h.kube.CoreV1().Services(testNamespace).Get(h.ctx, testName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int32{}
	for _, sp := range headless.Spec.Ports {
		names[sp.Name] = sp.Port
	}
	if names["schema-registry"] != 8081 || names["http-proxy"] != 8082 {
		t.Errorf("headless Service ports %v, want the Schema Registry's and the HTTP Proxy's", names)
	}
}
