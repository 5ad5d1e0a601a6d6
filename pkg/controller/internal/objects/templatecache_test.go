package objects

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The cache never serves a template other than the one a fresh build gives, through a series
// of spec changes (each field the template reads), seed counts and a cluster made again under
// the same name, and a caller's change to a template it was given does not reach the cache.
func TestPodTemplatesServeWhatAFreshBuildGives(t *testing.T) {
	bc := newBrokerCluster(3)
	bc.UID = "uid-1"
	cache := NewPodTemplates(testDomain)
	check := func(stage string, seeds int32) {
		t.Helper()
		got, want := cache.Get(bc, seeds), hashedPodTemplate(bc, seeds, testDomain)
		if !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("%s: the cache served template %s, a fresh build gives %s", stage,
				got.Annotations[AnnotationTemplateHash], want.Annotations[AnnotationTemplateHash])
		}
	}
	check("first build", 3)
	check("same spec", 3)
	given := cache.Get(bc, 3)
	given.Annotations["changed-by-caller"] = "x"
	given.Spec.Containers[0].Image = "changed-by-caller"
	check("after a caller changed its copy", 3)
	check("other seed count", 1)
	scaled := bc.DeepCopy()
	scaled.Spec.Replicas = 7
	if !sameTemplateInputs(&bc.Spec, &scaled.Spec) {
		t.Error("a scaling step (spec.replicas alone) would build the template again")
	}

	for _, edit := range []struct {
		name string
		edit func(*v1alpha1.BrokerClusterSpec)
	}{
		{"replicas", func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 5 }},
		{"image", func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.1.2" }},
		{"pod annotation", func(s *v1alpha1.BrokerClusterSpec) { s.PodAnnotations = map[string]string{"a": "1"} }},
		{"pod annotation value", func(s *v1alpha1.BrokerClusterSpec) { s.PodAnnotations["a"] = "2" }},
		{"resources", func(s *v1alpha1.BrokerClusterSpec) {
			s.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		}},
		{"resources, same quantity written otherwise", func(s *v1alpha1.BrokerClusterSpec) {
			s.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m")}
		}},
		{"admin port", func(s *v1alpha1.BrokerClusterSpec) { s.AdminAPI.Port = 9645 }},
		{"admin TLS", func(s *v1alpha1.BrokerClusterSpec) {
			s.AdminAPI.TLS = &v1alpha1.AdminAPITLS{SecretName: "ca", ServerSecretName: "server"}
		}},
		{"node selector", func(s *v1alpha1.BrokerClusterSpec) { s.NodeSelector = map[string]string{"zone": "a"} }},
		{"kafka SASL", func(s *v1alpha1.BrokerClusterSpec) { s.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{}} }},
		{"cluster property", func(s *v1alpha1.BrokerClusterSpec) { s.ClusterConfig = map[string]string{"log_segment_size": "1"} }},
		{"no topology spread (an empty list)", func(s *v1alpha1.BrokerClusterSpec) {
			s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{}
		}},
		{"the default topology spread again (no list)", func(s *v1alpha1.BrokerClusterSpec) { s.TopologySpreadConstraints = nil }},
		{"affinity", func(s *v1alpha1.BrokerClusterSpec) {
			s.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{}}
		}},
		{"priority class", func(s *v1alpha1.BrokerClusterSpec) { s.PriorityClassName = "brokers" }},
	} {
		edit.edit(&bc.Spec)
		check(edit.name, 3)
	}

	again := bc.DeepCopy()
	again.UID = types.UID("uid-2")
	if got := cache.Get(again, 3); got.Annotations[AnnotationTemplateHash] != hashedPodTemplate(again, 3, testDomain).Annotations[AnnotationTemplateHash] {
		t.Error("a cluster made again under the same name got another template")
	}
	cache.Forget(clusterKey(bc))
	if _, ok := cache.byCluster[clusterKey(bc)]; ok {
		t.Error("forget kept the cluster's template")
	}
}

// BenchmarkPodTemplate compares, side by side, building a cluster's pod template (its node config
// rendered to YAML, the template hashed) with taking it from the cache.
func BenchmarkPodTemplate(b *testing.B) {
	bc := newBrokerCluster(3)
	bc.Spec.PodAnnotations = map[string]string{"a": "1"}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			hashedPodTemplate(bc, 3, testDomain)
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := NewPodTemplates(testDomain)
		for b.Loop() {
			cache.Get(bc, 3)
		}
	})
}
