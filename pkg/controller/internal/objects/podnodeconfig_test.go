package objects

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// podOfTemplate is a pod as the StatefulSet controller makes it from the cluster's template.
func podOfTemplate(bc *v1alpha1.BrokerCluster) *corev1.Pod {
	t := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: bc.Name + "-0", Labels: t.Labels}, Spec: t.Spec}
}

func TestPodRequiresSASL(t *testing.T) {
	plain := newBrokerCluster(3)
	plain.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: "admin-user"}
	withSASL := plain.DeepCopy()
	withSASL.Spec.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SCRAMSHA256}}
	external := kafkaCluster()

	unreadable := podOfTemplate(withSASL)
	for i := range unreadable.Spec.InitContainers {
		for j := range unreadable.Spec.InitContainers[i].Env {
			if unreadable.Spec.InitContainers[i].Env[j].Name == nodeConfigVar {
				unreadable.Spec.InitContainers[i].Env[j].Value = "redpanda: [not a map"
			}
		}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"no spec.kafka.sasl", podOfTemplate(plain), false},
		{"spec.kafka.sasl", podOfTemplate(withSASL), true},
		{"spec.kafka.sasl with an external listener", podOfTemplate(external), true},
		// Taken as not requiring it, so a restart onto SASL is held rather than let through.
		{"a node config that cannot be read", unreadable, false},
		{"no config container", &corev1.Pod{}, false},
	} {
		if got := PodRequiresSASL(tc.pod); got != tc.want {
			t.Errorf("%s: PodRequiresSASL = %v, want %v", tc.name, got, tc.want)
		}
	}
}
