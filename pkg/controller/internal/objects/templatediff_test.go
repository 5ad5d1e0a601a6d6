package objects

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// admitted is a pod made from t as the apiserver keeps it: the StatefulSet's labels and claim
// volume, the service account token, tolerations for unready nodes, defaulted ports, fieldRef
// apiVersions and requests copied from limits.
func admitted(t corev1.PodTemplateSpec) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: *t.ObjectMeta.DeepCopy(), Spec: *t.Spec.DeepCopy()}
	p.Labels["statefulset.kubernetes.io/pod-name"] = "redpanda-0"
	p.Spec.Volumes = append(p.Spec.Volumes,
		corev1.Volume{Name: dataVolume, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "datadir-redpanda-0"}}},
		corev1.Volume{Name: "kube-api-access-x", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}})
	p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)})
	p.Spec.ServiceAccountName = "default"
	if p.Spec.TerminationGracePeriodSeconds == nil {
		p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "kube-api-access-x", MountPath: serviceAccountMountPath, ReadOnly: true})
			for j := range c.Ports {
				c.Ports[j].Protocol = corev1.ProtocolTCP
			}
			for j := range c.Env {
				if f := c.Env[j].ValueFrom; f != nil && f.FieldRef != nil {
					f.FieldRef.APIVersion = "v1"
				}
			}
			if c.Resources.Requests == nil && c.Resources.Limits != nil {
				c.Resources.Requests = c.Resources.Limits.DeepCopy()
			}
		}
	}
	return p
}

// A pod names the fields a restart changes, and none that the apiserver's defaults touched.
func TestTemplateChangesNameWhatARestartApplies(t *testing.T) {
	bc := newBrokerCluster(3)
	bc.Spec.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	bc.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "brokers", Effect: corev1.TaintEffectNoSchedule}}
	pod := admitted(hashedPodTemplate(bc, 3, testDomain))
	if got := TemplateChanges(pod, hashedPodTemplate(bc, 3, testDomain)); len(got) != 0 {
		t.Fatalf("a pod of the current template, as the apiserver keeps it: %v, want no change", got)
	}
	next := bc.DeepCopy()
	next.Spec.Image = "redpanda:v25.1.2"
	if got := TemplateChanges(pod, hashedPodTemplate(next, 3, testDomain)); len(got) != 0 {
		t.Errorf("a new image alone: %v, want no field (the image is named apart)", got)
	}
	next.Spec.Resources.Limits[corev1.ResourceMemory] = resource.MustParse("8Gi")
	next.Spec.PodAnnotations = map[string]string{"team": "a"}
	next.Spec.Tolerations = nil
	got := TemplateChanges(pod, hashedPodTemplate(next, 3, testDomain))
	for _, want := range []string{"container broker resources", "container broker args", "tolerations", "annotations"} {
		if !slices.Contains(got, want) {
			t.Errorf("changes %v lack %q", got, want)
		}
	}
	if slices.Contains(got, "volumes") || slices.Contains(got, "labels") {
		t.Errorf("changes %v name fields that did not change", got)
	}
}

// The termination grace period: unset, the template names none (so that upgrading the operator
// changes no hash) and a pod with the apiserver's 30 s is current; set, or set back to unset, it
// is a change a restart applies.
func TestTemplateChangesNameTheTerminationGracePeriod(t *testing.T) {
	bc := newBrokerCluster(3)
	unset := hashedPodTemplate(bc, 3, testDomain)
	if g := unset.Spec.TerminationGracePeriodSeconds; g != nil {
		t.Fatalf("unset, the template names a grace period of %d s", *g)
	}
	pod := admitted(unset)
	if got := TemplateChanges(pod, unset); len(got) != 0 {
		t.Fatalf("a pod with the apiserver's default grace period: %v, want no change", got)
	}
	bc.Spec.TerminationGracePeriodSeconds = ptr.To[int64](90)
	set := hashedPodTemplate(bc, 3, testDomain)
	if g := set.Spec.TerminationGracePeriodSeconds; g == nil || *g != 90 {
		t.Fatalf("the template's grace period is %v, want 90 s", g)
	}
	if set.Annotations[AnnotationTemplateHash] == unset.Annotations[AnnotationTemplateHash] {
		t.Error("a grace period set left the template hash as it was: no broker would restart")
	}
	if got := TemplateChanges(pod, set); !slices.Equal(got, []string{"terminationGracePeriodSeconds"}) {
		t.Errorf("set to 90 s: changes %v, want terminationGracePeriodSeconds alone", got)
	}
	if got := TemplateChanges(admitted(set), unset); !slices.Equal(got, []string{"terminationGracePeriodSeconds"}) {
		t.Errorf("unset again on a pod of 90 s: changes %v, want terminationGracePeriodSeconds alone", got)
	}
}
