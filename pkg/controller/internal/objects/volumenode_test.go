package objects

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func pinned(terms ...corev1.NodeSelectorTerm) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Spec: corev1.PersistentVolumeSpec{
			ClaimRef:     &corev1.ObjectReference{Namespace: "ns", Name: "datadir-rp-1", UID: "c1"},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: terms}},
		},
	}
}

func hostIn(values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: values}}}
}

func TestPinnedNodeReadsOnlyTheLocalVolumeShape(t *testing.T) {
	if n, ok := PinnedNode(pinned(hostIn("node-a"))); !ok || n != "node-a" {
		t.Errorf("PinnedNode = %q, %v; want node-a", n, ok)
	}
	zone := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}
	for name, pv := range map[string]*corev1.PersistentVolume{
		"two hosts":   pinned(hostIn("node-a", "node-b")),
		"two terms":   pinned(hostIn("node-a"), hostIn("node-b")),
		"a zone":      pinned(zone),
		"no affinity": {Spec: corev1.PersistentVolumeSpec{}},
	} {
		if n, ok := PinnedNode(pv); ok {
			t.Errorf("%s: pinned to %q", name, n)
		}
	}
}

// The chain claim -> volume -> node: a node that is not there is gone; one that is there, Ready
// or not, is not; a volume bound to another claim (the UID differs) is not this claim's.
func TestReadVolumeNode(t *testing.T) {
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "datadir-rp-1", Namespace: "ns", UID: "c1"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"}}
	ctx := context.Background()
	kube := fake.NewClientset(claim, pinned(hostIn("node-a")))
	v, ok, err := ReadVolumeNode(ctx, kube, "ns", "datadir-rp-1")
	if err != nil || !ok || !v.NodeGone || v.Node != "node-a" || v.Volume != "pv-1" || v.ClaimUID != "c1" {
		t.Fatalf("ReadVolumeNode = %+v, %v, %v; want pv-1 on node-a, gone", v, ok, err)
	}
	notReady := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}}}
	kube = fake.NewClientset(claim, pinned(hostIn("node-a")), notReady)
	if v, ok, err := ReadVolumeNode(ctx, kube, "ns", "datadir-rp-1"); err != nil || !ok || v.NodeGone {
		t.Errorf("a NotReady node: %+v, %v, %v; want not gone", v, ok, err)
	}
	other := pinned(hostIn("node-a"))
	other.Spec.ClaimRef.UID = "an older claim"
	kube = fake.NewClientset(claim, other)
	if _, ok, err := ReadVolumeNode(ctx, kube, "ns", "datadir-rp-1"); err != nil || ok {
		t.Errorf("a volume bound to another claim: ok %v, %v; want not this claim's", ok, err)
	}
	if _, ok, err := ReadVolumeNode(ctx, fake.NewClientset(), "ns", "datadir-rp-1"); err != nil || ok {
		t.Errorf("no claim: ok %v, %v", ok, err)
	}
}
