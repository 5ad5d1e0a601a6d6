package objects

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// podNodeConfig is the node config the pod's config container writes, as the pod was made:
// what its broker runs with, whatever the template says now.
func podNodeConfig(pod *corev1.Pod) (nodeConfigFileContent, bool) {
	for _, c := range pod.Spec.InitContainers {
		if c.Name != configInit {
			continue
		}
		for _, e := range c.Env {
			if e.Name != nodeConfigVar {
				continue
			}
			var cfg nodeConfigFileContent
			if err := yaml.Unmarshal([]byte(e.Value), &cfg); err != nil {
				return nodeConfigFileContent{}, false
			}
			return cfg, true
		}
	}
	return nodeConfigFileContent{}, false
}

// PodRequiresSASL reports whether the pod's broker requires SASL on a Kafka listener: a listener
// whose authentication_method is set uses it whatever enable_sasl says (redpanda-data/redpanda
// src/v/kafka/server/server.cc, get_authn_method). A pod whose node config cannot be read is
// taken as not requiring it: a restart of its broker is then held like any other that would
// turn SASL on, which is the safe side.
func PodRequiresSASL(pod *corev1.Pod) bool {
	cfg, _ := podNodeConfig(pod)
	for _, l := range cfg.Redpanda.KafkaAPI {
		if l.AuthenticationMethod == "sasl" {
			return true
		}
	}
	return false
}
