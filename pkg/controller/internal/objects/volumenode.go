package objects

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// A local volume (a PersistentVolume of type local or hostPath, or a CSI driver's that keeps
// data on one node) is pinned to its node by its required node affinity, so the scheduler
// places the pod that mounts it only there. When that node's object is deleted, the pod can
// never be scheduled again. The chain claim -> volume -> node is read here with a GET by name
// each: no claim, volume or node informer, since it is read only for a pod the scheduler
// cannot place.

// VolumeNode is a data volume claim, the volume it is bound to and the node that volume is
// pinned to.
type VolumeNode struct {
	Claim, ClaimUID string
	Volume          string
	Node            string
	// NodeGone: the apiserver answered NotFound for the node. A node that exists, Ready or not,
	// is never gone.
	NodeGone bool
}

// PinnedNode returns the node a volume's required node affinity pins it to: a single node
// selector term whose kubernetes.io/hostname expression is In one value, the shape the local
// volume provisioners write. Other shapes (several terms, several hosts, a zone) may match
// another node, and are not pinned. The hostname label is the node's name unless its kubelet
// runs with --hostname-override.
func PinnedNode(pv *corev1.PersistentVolume) (string, bool) {
	a := pv.Spec.NodeAffinity
	if a == nil || a.Required == nil || len(a.Required.NodeSelectorTerms) != 1 {
		return "", false
	}
	for _, e := range a.Required.NodeSelectorTerms[0].MatchExpressions {
		if e.Key == corev1.LabelHostname && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) == 1 {
			return e.Values[0], true
		}
	}
	return "", false
}

// ReadVolumeNode reads claim in namespace ns, the volume it is bound to and the node that
// volume is pinned to, each with a GET by name. ok is false when the claim does not exist, is
// being deleted or is not bound, or its volume is not pinned to one node.
func ReadVolumeNode(ctx context.Context, kube kubernetes.Interface, ns, claim string) (v VolumeNode, ok bool, err error) {
	c, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claim, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return v, false, nil
	case err != nil:
		return v, false, fmt.Errorf("read volume claim %s/%s: %w", ns, claim, err)
	case c.DeletionTimestamp != nil || c.Spec.VolumeName == "":
		return v, false, nil
	}
	v = VolumeNode{Claim: claim, ClaimUID: string(c.UID), Volume: c.Spec.VolumeName}
	pv, err := kube.CoreV1().PersistentVolumes().Get(ctx, v.Volume, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return v, false, nil
	case err != nil:
		return v, false, fmt.Errorf("read volume %s of claim %s/%s: %w", v.Volume, ns, claim, err)
	case pv.Spec.ClaimRef == nil || string(pv.Spec.ClaimRef.UID) != v.ClaimUID:
		return v, false, nil // not bound to this claim (yet)
	}
	node, pinned := PinnedNode(pv)
	if !pinned {
		return v, false, nil
	}
	v.Node = node
	_, err = kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		v.NodeGone = true
	case err != nil:
		return v, false, fmt.Errorf("read node %s of volume %s: %w", node, v.Volume, err)
	}
	return v, true, nil
}
