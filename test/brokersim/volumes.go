package brokersim

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/controller"
)

// LabelClaimNamespace marks the PersistentVolumes a VolumeBinder made with their claim's
// namespace, so that a test can remove them with it.
const LabelClaimNamespace = "brokersim.broker-operator.dev/claim-namespace"

// Provisioner is the volumes' pv.kubernetes.io/provisioned-by: a name outside kubernetes.io/
// tells the controller-manager that an external provisioner deletes them
// (pkg/controller/volume/persistentvolume's findDeletablePlugin), as the VolumeBinder does.
const Provisioner = "brokersim.broker-operator.dev/volume-binder"

// VolumeBinder gives each claim of the operator's StatefulSets a PersistentVolume bound to it in
// advance; the controller-manager's binder completes the binding. The volumes are never mounted
// (kwok runs no containers). As a dynamic provisioner's volumes with reclaimPolicy Delete, a
// volume is deleted once its claim is gone (Released): kept, thousands of Released volumes would
// slow the controller-manager's volume binder, which looks through every volume for each claim.
// A volume whose reclaim policy was changed to Retain is kept, as a provisioner keeps it.
//
// A claim of a StorageClass with volumeBindingMode WaitForFirstConsumer gets a local volume, as
// a local volume provisioner makes one: once the scheduler has picked a node for its pod (the
// claim's volume.kubernetes.io/selected-node annotation), a volume of type local pinned to that
// node by its node affinity. Its pod can then only run there; a test that deletes the node
// leaves the pod unschedulable.
type VolumeBinder struct{ watch }

// StartVolumeBinder watches the operator's claims in namespace (all if empty) until Stop, or
// until ctx ends, and returns once its informer has synced.
func StartVolumeBinder(ctx context.Context, client kubernetes.Interface, namespace string) (*VolumeBinder, error) {
	ctx, w := newWatch(ctx, client, namespace, labels.Set{controller.LabelManagedBy: controller.ManagedByValue}.String())
	b := &VolumeBinder{w}
	informer := b.factory.Core().V1().PersistentVolumeClaims().Informer()
	volumes := b.factory.InformerFor(&corev1.PersistentVolume{}, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return coreinformers.NewFilteredPersistentVolumeInformer(client, resync, cache.Indexers{}, func(o *metav1.ListOptions) {
			o.LabelSelector = volumeSelector(namespace)
		})
	})
	bind := func(obj any) {
		claim, ok := obj.(*corev1.PersistentVolumeClaim)
		if !ok || claim.Spec.VolumeName != "" || claim.DeletionTimestamp != nil {
			return
		}
		if err := createVolumeFor(ctx, client, claim); err != nil {
			utilruntime.HandleError(err)
		}
	}
	reclaim := func(obj any) {
		pv, ok := obj.(*corev1.PersistentVolume)
		if !ok || pv.Annotations[annProvisionedBy] != Provisioner || pv.Status.Phase != corev1.VolumeReleased || pv.DeletionTimestamp != nil ||
			pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
			return // only the volumes it made, once their claim is gone, unless someone keeps them
		}
		if err := deleteVolume(ctx, client, pv); err != nil {
			utilruntime.HandleError(err)
		}
	}
	if err := b.start(ctx, handler{informer: informer, on: bind}, handler{informer: volumes, on: reclaim}); err != nil {
		return nil, err
	}
	return b, nil
}

func createVolumeFor(ctx context.Context, client kubernetes.Interface, claim *corev1.PersistentVolumeClaim) error {
	className := ""
	if claim.Spec.StorageClassName != nil {
		className = *claim.Spec.StorageClassName
	}
	node, wait, err := localNode(ctx, client, className, claim)
	if err != nil || wait {
		return err
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        volumeNameFor(claim),
			Labels:      map[string]string{LabelClaimNamespace: claim.Namespace},
			Annotations: map[string]string{annProvisionedBy: Provisioner},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   claim.Spec.AccessModes,
			StorageClassName:              className,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: "/nonexistent/" + claim.Namespace + "/" + claim.Name},
			},
		},
	}
	if node != "" {
		pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disks/" + claim.Namespace + "/" + claim.Name}}
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}}}
	}
	_, err = client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
		return fmt.Errorf("brokersim: create PersistentVolume for claim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	return nil
}

// annSelectedNode is the annotation the scheduler's volume binding sets on a claim of a
// WaitForFirstConsumer class once it has picked its pod's node (k8s.io/component-helpers
// storage/volume, AnnSelectedNode).
const annSelectedNode = "volume.kubernetes.io/selected-node"

// localNode says which node the volume of a claim of a WaitForFirstConsumer class is made on:
// the node the scheduler selected, or wait until it has. "" for a claim of any other class.
func localNode(ctx context.Context, client kubernetes.Interface, className string, claim *corev1.PersistentVolumeClaim) (node string, wait bool, err error) {
	if className == "" {
		return "", false, nil
	}
	class, err := client.StorageV1().StorageClasses().Get(ctx, className, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", false, nil
	case err != nil:
		return "", true, fmt.Errorf("brokersim: read StorageClass %s of claim %s/%s: %w", className, claim.Namespace, claim.Name, err)
	case class.VolumeBindingMode == nil || *class.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer:
		return "", false, nil
	}
	node = claim.Annotations[annSelectedNode]
	return node, node == "", nil
}

// annProvisionedBy is the annotation the controller-manager reads to find who deletes a
// volume (k8s.io/component-helpers/storage/volume's AnnDynamicallyProvisioned).
const annProvisionedBy = "pv.kubernetes.io/provisioned-by"

// volumeSelector selects the volumes a VolumeBinder made for claims in namespace (all if empty).
func volumeSelector(namespace string) string {
	if namespace == "" {
		return LabelClaimNamespace
	}
	return labels.Set{LabelClaimNamespace: namespace}.String()
}

// deleteVolume deletes a Released volume, the one seen (by UID): the claim it was bound to is
// gone, and a claim made again under that name gets a volume of its own.
func deleteVolume(ctx context.Context, client kubernetes.Interface, pv *corev1.PersistentVolume) error {
	uid := pv.UID
	err := client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
		return fmt.Errorf("brokersim: delete Released PersistentVolume %s: %w", pv.Name, err)
	}
	return nil
}

// volumeNameFor names the volume of one claim. A claim made again under the same name (a
// scale-down deleted it, a scale-up makes it anew) gets a volume of its own: the old one,
// Released and bound to the old claim's UID, is deleted.
func volumeNameFor(claim *corev1.PersistentVolumeClaim) string {
	uid := string(claim.UID)
	if len(uid) > 8 {
		uid = uid[:8]
	}
	return VolumeName(claim.Namespace, claim.Name) + "-" + uid
}

// VolumeName is the name of the PersistentVolume made for a claim: readable, and unique even
// where the readable part had to be cut short.
func VolumeName(namespace, claim string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(namespace + "/" + claim))
	name := namespace + "-" + claim
	if len(name) > 200 {
		name = name[:200]
	}
	return fmt.Sprintf("%s-%08x", name, h.Sum32())
}
