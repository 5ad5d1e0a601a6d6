package controller

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pod made without its volume claim (the StatefulSet controller's claim cache had not seen
// the claim's delete) stays Pending until that controller syncs the set again. The operator
// deletes such a pod once it has been Pending for claimlessPodGrace, and not while its claim
// exists, so that the StatefulSet controller makes both again at once.
func TestAPendingPodWithoutItsClaimIsDeletedAfterItsGrace(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(2)
	pods := h.kube.CoreV1().Pods(testNamespace)
	name := testName + "-1"
	running, err := pods.Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pending := running.DeepCopy()
	pending.ResourceVersion, pending.UID = "", "claimless"
	pending.Spec.NodeName = ""
	pending.Status = corev1.PodStatus{Phase: corev1.PodPending}
	pending.CreationTimestamp = metav1.NewTime(h.clock.Now())
	if err := pods.Delete(h.ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(h.ctx, pending, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.await("the Pending pod in the informer", func() bool {
		obj, ok, _ := h.nc.raw.pods.GetByKey(testNamespace + "/" + name)
		return ok && obj.(*corev1.Pod).UID == "claimless"
	})
	podUID := func() string {
		p, err := pods.Get(h.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		return string(p.UID)
	}

	res, err := h.reconcile()
	if err != nil {
		t.Fatal(err)
	}
	if got := podUID(); got != "claimless" {
		t.Fatalf("pod %s is %q within its grace, want it kept", name, got)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > claimlessPodGrace {
		t.Errorf("requeue after %v, want a look again when the grace ends (at most %v)", res.RequeueAfter, claimlessPodGrace)
	}

	h.clock.Step(claimlessPodGrace)
	claims := h.kube.CoreV1().PersistentVolumeClaims(testNamespace)
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "datadir-" + name, Namespace: testNamespace}}
	if _, err := claims.Create(h.ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if got := podUID(); got != "claimless" {
		t.Fatalf("pod %s is %q while its claim exists, want it kept (it waits for a volume)", name, got)
	}

	if err := claims.Delete(h.ctx, claim.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if got := podUID(); got == "claimless" {
		t.Fatalf("pod %s still Pending without its claim after the grace, want it deleted", name)
	}
	if !strings.Contains(strings.Join(h.events(), "\n"), "DeleteClaimlessPod") {
		t.Errorf("no DeleteClaimlessPod event in %v", h.events())
	}
}
