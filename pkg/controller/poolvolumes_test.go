package controller

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// addPoolClaims plays the StatefulSet controller and the provisioner for the pods of the
// StatefulSet named set, as addClaims does for the cluster's own.
func (h *harness) addPoolClaims(set string) {
	h.t.Helper()
	sts, err := h.kube.AppsV1().StatefulSets(testNamespace).Get(h.ctx, set, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	template := sts.Spec.VolumeClaimTemplates[0]
	for o := range *sts.Spec.Replicas {
		claim := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: template.Name + "-" + set + "-" + strconv.Itoa(int(o)), Namespace: testNamespace, Labels: template.Labels},
			Spec:       *template.Spec.DeepCopy(),
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound,
				Capacity: corev1.ResourceList{corev1.ResourceStorage: template.Spec.Resources.Requests[corev1.ResourceStorage]}},
		}
		if err := h.kubeTrack.Create(claimsGVR, claim, testNamespace); err != nil {
			h.t.Fatal(err)
		}
	}
}

// A pool's storage grows alone: its claims are asked for the new size and its StatefulSet is
// made again with the grown claim template, keeping its pods; the default pool's claims and
// StatefulSet stay as they were. The growth is recorded in the pool's status.pools entry, and
// StorageResized names the pool.
func TestAPoolsStorageGrowsAlone(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.addStorageClass("expandable", true)
	bc := newBrokerCluster(2)
	bc.Spec.Storage.StorageClassName = ptr.To("expandable")
	blue := bluePool(2)
	blue.Storage.StorageClassName = ptr.To("expandable")
	bc.Spec.Pools = []v1alpha1.BrokerPool{blue}
	h.create(bc)
	for range 15 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("bring up: %v", err)
		}
	}
	h.answerDryRuns()
	h.addPoolClaims(testName)
	h.addPoolClaims(testName + "-blue")
	before := h.podUIDs()
	defaultSet := h.statefulSet()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Pools[0].Storage.Size = resource.MustParse("40Gi") })
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	for _, name := range []string{"datadir-" + testName + "-blue-0", "datadir-" + testName + "-blue-1"} {
		if got := h.claim(name).Spec.Resources.Requests[corev1.ResourceStorage]; got.String() != "40Gi" {
			t.Errorf("claim %s asks for %s, want 40Gi", name, got.String())
		}
		h.resize(name, false)
	}
	for _, name := range []string{claimName(0), claimName(1)} {
		if got := h.claim(name).Spec.Resources.Requests[corev1.ResourceStorage]; got.String() != "10Gi" {
			t.Errorf("the default pool's claim %s asks for %s, want it untouched", name, got.String())
		}
	}
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	sts, err := h.kube.AppsV1().StatefulSets(testNamespace).Get(h.ctx, testName+"-blue", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := objects.ClaimTemplateSize(sts); got.String() != "40Gi" {
		t.Errorf("blue's claim template asks for %s, want 40Gi", got.String())
	}
	got := h.statefulSet()
	if size := objects.ClaimTemplateSize(got); got.UID != defaultSet.UID || size.String() != "10Gi" {
		t.Errorf("the default pool's StatefulSet was made again or its claim template changed (%s)", size.String())
	}
	if got := h.restartedPods(before); len(got) != 0 {
		t.Errorf("pods restarted %v, want none", got)
	}
	st := h.stored().Status
	var storage *v1alpha1.StorageStatus
	for _, p := range st.Pools {
		if p.Name == "blue" {
			storage = p.Storage
		}
	}
	if storage == nil || storage.Size.String() != "40Gi" || len(storage.Claims) != 2 {
		t.Fatalf("blue's status.pools storage %+v, want its two claims at 40Gi", storage)
	}
	for _, c := range storage.Claims {
		if c.State != v1alpha1.ClaimResized {
			t.Errorf("claim %s is %s, want Resized", c.Claim, c.State)
		}
	}
	if st.Storage != nil {
		t.Errorf("status.storage %+v: the default pool grew nothing", st.Storage)
	}
	if c := h.storageCondition(); c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "pool blue") {
		t.Errorf("StorageResized %+v, want True naming pool blue", c)
	}
}
