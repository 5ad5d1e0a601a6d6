package objects

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// Broker facts: the two settings of a broker's node config that differ per broker and are known
// only once its pod is placed, its external Kafka address and its rack. A StatefulSet has one pod
// template, so the operator records them on each pod as annotations; the config container reads
// them through a downward API volume (which the kubelet refreshes when the annotations change),
// waits until they are there, and writes them into redpanda.yaml with `rpk redpanda config
// set`, as the chart's configurator does (charts/redpanda secrets.go, SecretConfigurator).
const (
	// AnnotationExternalAddress is the host:port the pod's broker advertises on the external
	// Kafka listener.
	AnnotationExternalAddress = "broker-operator.dev/kafka-external-address"
	// AnnotationRack is the rack of the pod's broker: its node's zone label.
	AnnotationRack = "broker-operator.dev/rack"
	// AnnotationHTTPProxyExternalAddress is the host:port the pod's broker advertises on the
	// HTTP Proxy's external listener.
	AnnotationHTTPProxyExternalAddress = "broker-operator.dev/http-proxy-external-address"

	factsVolume = "broker-facts"
	factsDir    = "/etc/broker-operator"
	// externalAddressPending is the external listener's advertised host in the rendered
	// redpanda.yaml; the config container replaces it before Redpanda starts.
	externalAddressPending = "external-address-pending"
	// factsWaitSeconds bounds how long the config container waits for the operator; then it
	// fails and the kubelet starts it again.
	factsWaitSeconds = 900
)

// externalListener is the spec's external Kafka listener, nil when there is none.
func ExternalListener(bc *v1alpha1.BrokerCluster) *v1alpha1.ExternalListener {
	if bc.Spec.Kafka == nil {
		return nil
	}
	return bc.Spec.Kafka.External
}

// factFiles maps each fact the pod needs to its annotation, keyed by file name.
func FactFiles(bc *v1alpha1.BrokerCluster) map[string]string {
	files := map[string]string{}
	if ExternalListener(bc) != nil {
		files["kafka-external-address"] = AnnotationExternalAddress
	}
	if bc.Spec.RackAwareness != nil {
		files["rack"] = AnnotationRack
	}
	if HTTPProxyExternal(bc) != nil {
		files["http-proxy-external-address"] = AnnotationHTTPProxyExternalAddress
	}
	return files
}

// HTTPProxyExternal is the HTTP Proxy's external listener in the Kafka listener's shape
// (brokerconfig.HTTPAPI.ExternalView), nil when there is none.
func HTTPProxyExternal(bc *v1alpha1.BrokerCluster) *v1alpha1.ExternalListener {
	if a, ok := brokerconfig.HTTPProxy(bc); ok {
		return a.ExternalView(bc)
	}
	return nil
}

// factsPodVolume is the downward API volume of the pod's fact annotations; nil when the spec
// needs none.
func factsPodVolume(bc *v1alpha1.BrokerCluster) *corev1.Volume {
	files := FactFiles(bc)
	if len(files) == 0 {
		return nil
	}
	var items []corev1.DownwardAPIVolumeFile
	for _, file := range []string{"kafka-external-address", "rack", "http-proxy-external-address"} {
		if annotation, ok := files[file]; ok {
			items = append(items, corev1.DownwardAPIVolumeFile{Path: file, FieldRef: &corev1.ObjectFieldSelector{
				FieldPath: fmt.Sprintf("metadata.annotations['%s']", annotation)}})
		}
	}
	return &corev1.Volume{Name: factsVolume, VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
		Items: items, DefaultMode: ptr.To[int32](0o444)}}}
}

// factsScript is the config container's shell that waits for each fact and writes it into
// redpanda.yaml: the external listener is advertised_kafka_api[1], after the internal one.
func factsScript(bc *v1alpha1.BrokerCluster) string {
	files := FactFiles(bc)
	if len(files) == 0 {
		return ""
	}
	set := `rpk redpanda config --config ` + nodeConfigFile + ` set `
	script := fmt.Sprintf(`; wait_for() { n=0; until [ -s "$1" ]; do n=$((n+1)); if [ "$n" -gt %d ]; then echo "$1 is empty: the operator has not recorded it on the pod" >&2; exit 1; fi; sleep 1; done; }`, factsWaitSeconds)
	if _, ok := files["kafka-external-address"]; ok {
		f := factsDir + "/kafka-external-address"
		script += `; wait_for ` + f + `; ADDRESS=$(cat ` + f + `); ` + set +
			`'redpanda.advertised_kafka_api[1]' "{\"name\":\"` + brokerconfig.ExternalListenerName + `\",\"address\":\"${ADDRESS%:*}\",\"port\":${ADDRESS##*:}}"`
	}
	if _, ok := files["rack"]; ok {
		f := factsDir + "/rack"
		script += `; wait_for ` + f + `; ` + set + `redpanda.rack "$(cat ` + f + `)"`
	}
	if _, ok := files["http-proxy-external-address"]; ok {
		// advertised_pandaproxy_api[1] is the external listener, after the internal one.
		f := factsDir + "/http-proxy-external-address"
		script += `; wait_for ` + f + `; ADDRESS=$(cat ` + f + `); ` + set +
			`'pandaproxy.advertised_pandaproxy_api[1]' "{\"name\":\"` + brokerconfig.ExternalListenerName + `\",\"address\":\"${ADDRESS%:*}\",\"port\":${ADDRESS##*:}}"`
	}
	return script
}

// factsSource is what the facts are made from, beyond the pod's placement. It is part of the pod
// template, so that a change of it (a new base port, other addresses, another node label) rolls
// the brokers onto the new facts.
func factsSource(bc *v1alpha1.BrokerCluster) string {
	if len(FactFiles(bc)) == 0 {
		return ""
	}
	src := struct {
		External          *v1alpha1.ExternalListener  `json:"external,omitempty"`
		Rack              *v1alpha1.RackAwarenessSpec `json:"rack,omitempty"`
		HTTPProxyExternal *v1alpha1.ExternalListener  `json:"httpProxyExternal,omitempty"`
	}{Rack: bc.Spec.RackAwareness}
	if l := HTTPProxyExternal(bc); l != nil {
		e := *l
		e.LoadBalancer = nil // the host is the Kafka listener's, hashed below
		src.HTTPProxyExternal = &e
	}
	if l := ExternalListener(bc); l != nil {
		e := *l
		e.TLS = nil // in the node config already
		if e.LoadBalancer != nil {
			e.LoadBalancer = &v1alpha1.LoadBalancerListener{HostTemplate: e.LoadBalancer.HostTemplate} // the rest is the Service's
		}
		src.External = &e
	}
	return hashOf(src)
}
