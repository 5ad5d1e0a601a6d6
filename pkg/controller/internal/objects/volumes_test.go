package objects

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestStatefulSetRestartsOnDeleteAndDropsScaledDownClaims(t *testing.T) {
	bc := newBrokerCluster(3)
	sts := NewStatefulSet(bc, 3, 3, testDomain)
	if sts.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
		t.Errorf("update strategy %q, want OnDelete: the operator restarts pods itself", sts.Spec.UpdateStrategy.Type)
	}
	want := appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
	}
	if p := sts.Spec.PersistentVolumeClaimRetentionPolicy; p == nil || *p != want {
		t.Errorf("claim retention %+v by default, want %+v", p, want)
	}
	bc.Spec.Storage.WhenScaledDown = v1alpha1.VolumeRetain
	retained := NewStatefulSet(bc, 3, 3, testDomain)
	if p := retained.Spec.PersistentVolumeClaimRetentionPolicy; p == nil || p.WhenScaled != appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		t.Errorf("claim retention %+v with whenScaledDown Retain", p)
	}
	if !SpecChanged(sts, retained) {
		t.Error("a change of the volume policy is not written to the StatefulSet")
	}
}

func TestTemplateHashFollowsThePodTemplateOnly(t *testing.T) {
	bc := newBrokerCluster(3)
	rev := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template.Annotations[AnnotationTemplateHash]
	if rev == "" {
		t.Fatal("no template hash on the pod template")
	}
	if got := NewStatefulSet(bc, 5, 3, testDomain).Spec.Template.Annotations[AnnotationTemplateHash]; got != rev {
		t.Error("the replica count changed the template hash: a scale would restart every broker")
	}
	bc.Spec.Storage.WhenScaledDown = v1alpha1.VolumeRetain
	if got := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template.Annotations[AnnotationTemplateHash]; got != rev {
		t.Error("the volume policy changed the template hash")
	}
	bc.Spec.Image = "redpanda:v25.2.1"
	if got := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template.Annotations[AnnotationTemplateHash]; got == rev {
		t.Error("a new image did not change the template hash")
	}
	bc.Spec.PodAnnotations = map[string]string{AnnotationTemplateHash: "forged", "team": "a"}
	a := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template.Annotations[AnnotationTemplateHash]
	if a == "forged" {
		t.Error("a pod annotation in the spec overrode the template hash")
	}
}
