package brokersim

import (
	"context"
	"fmt"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/controller"
)

// LabelClaimNamespace marks the PersistentVolumes a VolumeBinder made with their claim's
// namespace, so that a test can remove them with it.
const LabelClaimNamespace = "brokersim.broker-operator.dev/claim-namespace"

// VolumeBinder gives each claim of the operator's StatefulSets a PersistentVolume bound to it in
// advance; the controller-manager's binder completes the binding. The volumes are never mounted
// (kwok runs no containers) and are kept when the claim goes, as Retain volumes are.
type VolumeBinder struct {
	factory informers.SharedInformerFactory
	cancel  context.CancelFunc
}

// StartVolumeBinder watches the operator's claims in namespace (all if empty) until Stop, or
// until ctx ends, and returns once its informer has synced.
func StartVolumeBinder(ctx context.Context, client kubernetes.Interface, namespace string) (*VolumeBinder, error) {
	ctx, cancel := context.WithCancel(ctx)
	b := &VolumeBinder{cancel: cancel, factory: informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = labels.Set{controller.LabelManagedBy: controller.ManagedByValue}.String()
		}))}
	informer := b.factory.Core().V1().PersistentVolumeClaims().Informer()
	bind := func(obj any) {
		claim, ok := obj.(*corev1.PersistentVolumeClaim)
		if !ok || claim.Spec.VolumeName != "" || claim.DeletionTimestamp != nil {
			return
		}
		if err := createVolumeFor(ctx, client, claim); err != nil {
			utilruntime.HandleError(err)
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: bind, UpdateFunc: func(_, cur any) { bind(cur) }}); err != nil {
		cancel()
		return nil, err
	}
	b.factory.Start(ctx.Done())
	for typ, ok := range b.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			b.Stop()
			return nil, fmt.Errorf("brokersim: informer for %v did not sync", typ)
		}
	}
	return b, nil
}

// Stop stops the informer and waits for its handler to return.
func (b *VolumeBinder) Stop() {
	b.cancel()
	b.factory.Shutdown()
}

func createVolumeFor(ctx context.Context, client kubernetes.Interface, claim *corev1.PersistentVolumeClaim) error {
	className := ""
	if claim.Spec.StorageClassName != nil {
		className = *claim.Spec.StorageClassName
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:   volumeNameFor(claim),
			Labels: map[string]string{LabelClaimNamespace: claim.Namespace},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   claim.Spec.AccessModes,
			StorageClassName:              className,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: "/nonexistent/" + claim.Namespace + "/" + claim.Name},
			},
		},
	}
	_, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
		return fmt.Errorf("brokersim: create PersistentVolume for claim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	return nil
}

// volumeNameFor names the volume of one claim. A claim made again under the same name (a
// scale-down deleted it, a scale-up makes it anew) gets a volume of its own: the old one stays
// Released, bound to the old claim's UID, as a Retain volume does.
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
