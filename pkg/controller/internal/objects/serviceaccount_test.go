package objects

import (
	"os"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Upgrading the operator restarts no broker: for specs that set none of spec.imagePullSecrets,
// spec.serviceAccount, spec.terminationGracePeriodSeconds and a pool's serviceAccountName and
// imagePullSecrets, the pod templates and StatefulSets hash to what the operator wrote before
// those fields existed. A change of these values restarts every broker of every such cluster on
// upgrade.
func TestTemplatesOfSpecsWithoutTheFieldsHashAsBefore(t *testing.T) {
	plain := newBrokerCluster(3)
	plain.Spec.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}}
	blue, _ := NewPoolStatefulSet(withBluePool(newBrokerCluster(3)), "blue", 3, testDomain)
	emptied, _ := NewPoolStatefulSet(withBluePool(newBrokerCluster(3)), v1alpha1.DefaultPoolName, 3, testDomain)
	for _, tc := range []struct {
		name           string
		sts            *appsv1.StatefulSet
		template, spec string
	}{
		{"plain", NewStatefulSet(plain, 3, 3, testDomain), "9657ac47fd4a77c8", "0aaa11a623e76f9c"},
		{"listeners", NewStatefulSet(kafkaCluster(), 3, 3, testDomain), "fc9ffc8934bf01d7", "0af159ba1b5b600a"},
		{"pool", blue, "098d6240a97d3efb", "b5a3c6669e8dd4ac"},
		{"default pool, seeds from the ConfigMap", emptied, "8b457aa8f13a5632", "9c1d8bb2c1f617bd"},
	} {
		if got := tc.sts.Spec.Template.Annotations[AnnotationTemplateHash]; got != tc.template {
			t.Errorf("%s: template hash %s, want %s", tc.name, got, tc.template)
		}
		if got := tc.sts.Annotations[AnnotationSpecHash]; got != tc.spec {
			t.Errorf("%s: StatefulSet hash %s, want %s", tc.name, got, tc.spec)
		}
	}
}

// The cluster's pull secrets and service account reach every pool's pods; a pool's own replace
// them for its pods alone.
func TestPullSecretsAndServiceAccountReachEveryPool(t *testing.T) {
	bc := withBluePool(newBrokerCluster(3))
	green := bc.Spec.Pools[0]
	green.Name = "green"
	green.ServiceAccountName = "green-brokers"
	green.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "green-registry"}}
	bc.Spec.Pools = append(bc.Spec.Pools, green)
	bc.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}, {Name: "mirror"}}
	bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Create: true}

	want := map[string]struct {
		account string
		secrets []string
	}{
		v1alpha1.DefaultPoolName: {testName, []string{"registry", "mirror"}},
		"blue":                   {testName, []string{"registry", "mirror"}},
		"green":                  {"green-brokers", []string{"green-registry"}},
	}
	for pool, w := range want {
		sts, ok := NewPoolStatefulSet(bc, pool, 3, testDomain)
		if !ok {
			t.Fatalf("no StatefulSet for pool %s", pool)
		}
		spec := sts.Spec.Template.Spec
		var secrets []string
		for _, s := range spec.ImagePullSecrets {
			secrets = append(secrets, s.Name)
		}
		if spec.ServiceAccountName != w.account || !slices.Equal(secrets, w.secrets) {
			t.Errorf("pool %s: service account %q, pull secrets %v; want %q, %v", pool, spec.ServiceAccountName, secrets, w.account, w.secrets)
		}
	}
	if spec := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template.Spec; spec.ServiceAccountName != testName || len(spec.ImagePullSecrets) != 2 {
		t.Errorf("the default pool's first StatefulSet: %q %v", spec.ServiceAccountName, spec.ImagePullSecrets)
	}
}

// Setting either field changes the template, so the brokers restart one at a time, and the
// restart names the field.
func TestPullSecretsAndServiceAccountRestartTheBrokers(t *testing.T) {
	bc := newBrokerCluster(3)
	before := hashedPodTemplate(bc, 3, testDomain)
	pod := admitted(before) // named "default", as admission names a template with none
	if got := TemplateChanges(pod, before); len(got) != 0 {
		t.Errorf("an unchanged template: %v", got)
	}
	bc.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
	bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Name: "brokers"}
	after := hashedPodTemplate(bc, 3, testDomain)
	if after.Annotations[AnnotationTemplateHash] == before.Annotations[AnnotationTemplateHash] {
		t.Fatal("the template hash did not change")
	}
	if got := TemplateChanges(pod, after); !slices.Contains(got, "serviceAccountName") || !slices.Contains(got, "imagePullSecrets") {
		t.Errorf("changes %v, want serviceAccountName and imagePullSecrets", got)
	}
	bc.Spec.ServiceAccount = nil
	runsAsBrokers := admitted(after)
	runsAsBrokers.Spec.ServiceAccountName = "brokers"
	if got := TemplateChanges(runsAsBrokers, hashedPodTemplate(bc, 3, testDomain)); !slices.Contains(got, "serviceAccountName") {
		t.Errorf("back to the default service account: changes %v", got)
	}
}

// The ServiceAccount the operator makes carries the spec's annotations and no others, and is
// owned by the cluster; none is made for a name alone.
func TestNewServiceAccount(t *testing.T) {
	bc := newBrokerCluster(3)
	if NewServiceAccount(bc) != nil {
		t.Error("a ServiceAccount without spec.serviceAccount")
	}
	bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Name: "brokers"}
	if NewServiceAccount(bc) != nil || BrokerServiceAccountName(bc) != "brokers" {
		t.Error("a ServiceAccount for a name alone")
	}
	bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Create: true, Name: "iam-brokers", Annotations: map[string]string{"eks.amazonaws.com/role-arn": "arn"}}
	sa := NewServiceAccount(bc)
	if sa.Name != "iam-brokers" || sa.Annotations["eks.amazonaws.com/role-arn"] != "arn" || len(sa.OwnerReferences) != 1 || sa.Annotations[AnnotationSpecHash] == "" {
		t.Errorf("ServiceAccount %+v", sa.ObjectMeta)
	}
	existing := sa.DeepCopy()
	existing.Annotations["someone"] = "else"
	update := UpdatedServiceAccount(existing, sa)
	if update == nil || update.Annotations["someone"] != "" {
		t.Errorf("an annotation the spec does not name stays: %v", update)
	}
	if UpdatedServiceAccount(sa.DeepCopy(), sa) != nil {
		t.Error("an unchanged ServiceAccount is written")
	}
}

// The production example renders as its comment says: its pull secret and service account in
// the pods, Redpanda's cores and memory from its resources, the HTTP APIs on and 90 s to stop.
func TestProductionExampleRendersAsItSays(t *testing.T) {
	data, err := os.ReadFile("../../../../deploy/examples/brokercluster-production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var bc v1alpha1.BrokerCluster
	if err := yaml.UnmarshalStrict(data, &bc); err != nil {
		t.Fatal(err)
	}
	bc.Namespace = testNamespace
	spec := NewStatefulSet(&bc, 3, 3, testDomain).Spec.Template.Spec
	if spec.ServiceAccountName != "orders" || len(spec.ImagePullSecrets) != 1 || spec.ImagePullSecrets[0].Name != "registry-credentials" {
		t.Errorf("service account %q, pull secrets %v", spec.ServiceAccountName, spec.ImagePullSecrets)
	}
	for _, flag := range []string{"--smp=4", "--memory=14745M", "--reserve-memory=0M"} {
		if !slices.Contains(spec.Containers[0].Args, flag) {
			t.Errorf("args %v lack %s", spec.Containers[0].Args, flag)
		}
	}
	if g := spec.TerminationGracePeriodSeconds; g == nil || *g != 90 {
		t.Errorf("termination grace period %v, want 90 s", g)
	}
	if sa := NewServiceAccount(&bc); sa == nil || sa.Annotations["eks.amazonaws.com/role-arn"] == "" {
		t.Errorf("ServiceAccount %v", sa)
	}
	ports := map[string]int32{}
	for _, p := range spec.Containers[0].Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["schema-registry"] != 8081 || ports["http-proxy"] != 8082 {
		t.Errorf("ports %v, want the Schema Registry's and the HTTP Proxy's", ports)
	}
}
