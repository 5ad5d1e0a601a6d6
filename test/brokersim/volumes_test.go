package brokersim

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// volumeEvents reports the names of the PersistentVolumes created and deleted through client.
func volumeEvents(client *fake.Clientset) (created, deleted <-chan string) {
	c, d := make(chan string, 10), make(chan string, 10)
	client.PrependReactor("create", "persistentvolumes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		c <- a.(k8stesting.CreateAction).GetObject().(*corev1.PersistentVolume).Name
		return false, nil, nil
	})
	client.PrependReactor("delete", "persistentvolumes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d <- a.(k8stesting.DeleteAction).GetName()
		return false, nil, nil
	})
	return c, d
}

func receive(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case name := <-ch:
		return name
	case <-time.After(reportLimit):
		t.Fatalf("no %s within %s", what, reportLimit)
		return ""
	}
}

func TestVolumeBinderBindsAClaimAndDeletesItsVolumeOnceReleased(t *testing.T) {
	client := fake.NewClientset()
	created, deleted := volumeEvents(client)
	watches := writebacktest.RecordWatches(&client.Fake, client.Tracker())
	b, err := StartVolumeBinder(t.Context(), client, testNS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	// The fake loses a delete made between an informer's List and its Watch.
	if err := watches.Await(t.Context(), corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), corev1.SchemeGroupVersion.WithResource("persistentvolumes")); err != nil {
		t.Fatal(err)
	}

	// A volume nobody here made, already Released: not the binder's to delete.
	foreign := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "foreign"},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain}}
	foreign.Status.Phase = corev1.VolumeReleased
	if _, err := client.CoreV1().PersistentVolumes().Create(t.Context(), foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	receive(t, created, "create of the foreign volume")

	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "datadir-example-0", UID: "0a1b2c3d-4e5f",
			Labels: map[string]string{controller.LabelManagedBy: controller.ManagedByValue}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(testNS).Create(t.Context(), claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	name := receive(t, created, "volume for the claim")
	pv, err := client.CoreV1().PersistentVolumes().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Namespace != testNS || ref.Name != claim.Name || ref.UID != claim.UID {
		t.Errorf("claimRef = %+v, want the claim %s/%s (UID %s)", ref, testNS, claim.Name, claim.UID)
	}
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.Annotations[annProvisionedBy] != Provisioner {
		t.Errorf("reclaim policy %q, provisioned-by %q: want Delete by %s, so that the controller-manager leaves the delete to the binder",
			pv.Spec.PersistentVolumeReclaimPolicy, pv.Annotations[annProvisionedBy], Provisioner)
	}

	// The claim is gone: the controller-manager marks its volume Released.
	pv.Status.Phase = corev1.VolumeReleased
	if _, err := client.CoreV1().PersistentVolumes().UpdateStatus(t.Context(), pv, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The binder handles volumes in the order it sees them, so the foreign volume, seen first,
	// would have been deleted first.
	if got := receive(t, deleted, "delete of the Released volume"); got != name {
		t.Fatalf("deleted %s, want only %s", got, name)
	}
	if _, err := client.CoreV1().PersistentVolumes().Get(t.Context(), foreign.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the foreign volume: %v", err)
	}
}
