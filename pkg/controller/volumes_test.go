package controller

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

var claimsGVR = corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")

// addStorageClass adds a StorageClass, as an administrator would, behind the controller's back.
func (h *harness) addStorageClass(name string, allowExpansion bool) {
	h.t.Helper()
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "example.com/disk", AllowVolumeExpansion: ptr.To(allowExpansion)}
	if err := h.kubeTrack.Add(class); err != nil {
		h.t.Fatal(err)
	}
}

// bringUpOnClass brings up three brokers whose claims use a new StorageClass, with their
// claims bound at the size asked for.
func (h *harness) bringUpOnClass(class string, allowExpansion bool) {
	h.t.Helper()
	h.addStorageClass(class, allowExpansion)
	bc := newBrokerCluster(3)
	bc.Spec.Storage.StorageClassName = ptr.To(class)
	h.bringUpCluster(bc)
	h.addClaims()
}

// addClaims plays the StatefulSet controller and the provisioner for the claims, which the
// harness's StatefulSet player does not make: a bound claim per pod, from the claim template,
// with the capacity it asked for.
func (h *harness) addClaims() {
	h.t.Helper()
	h.answerDryRuns()
	template := h.statefulSet().Spec.VolumeClaimTemplates[0]
	for _, p := range h.pods() {
		claim := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: template.Name + "-" + p.Name, Namespace: testNamespace, Labels: template.Labels},
			Spec:       *template.Spec.DeepCopy(),
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound,
				Capacity: corev1.ResourceList{corev1.ResourceStorage: template.Spec.Resources.Requests[corev1.ResourceStorage]}},
		}
		if err := h.kubeTrack.Create(claimsGVR, claim, testNamespace); err != nil {
			h.t.Fatal(err)
		}
	}
}

// answerDryRuns makes the fake answer a dry-run patch of a claim as kube-apiserver does: with
// the object as stored, unchanged. The fake itself applies it.
func (h *harness) answerDryRuns() {
	h.kube.PrependReactor("patch", "persistentvolumeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchActionImpl)
		if len(p.PatchOptions.DryRun) == 0 {
			return false, nil, nil
		}
		obj, err := h.kubeTrack.Get(claimsGVR, p.GetNamespace(), p.GetName())
		return true, obj, err
	})
}

func (h *harness) claim(name string) *corev1.PersistentVolumeClaim {
	h.t.Helper()
	obj, err := h.kubeTrack.Get(claimsGVR, testNamespace, name)
	if err != nil {
		h.t.Fatal(err)
	}
	return obj.(*corev1.PersistentVolumeClaim)
}

// resize plays the CSI resizer (and, with fsPending, the kubelet not yet done) for one claim:
// its capacity becomes its request, or it waits for FileSystemResizePending.
func (h *harness) resize(name string, fsPending bool) {
	h.t.Helper()
	claim := h.claim(name).DeepCopy()
	claim.Status.Conditions = nil
	if fsPending {
		claim.Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimFileSystemResizePending,
			Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(h.clock.Now())}}
	} else {
		claim.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]}
	}
	if err := h.kubeTrack.Update(claimsGVR, claim, testNamespace); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) claimPatches() []string {
	var out []string
	for _, a := range h.kube.Actions() {
		if p, ok := a.(k8stesting.PatchActionImpl); ok && a.GetResource().Resource == "persistentvolumeclaims" && len(p.PatchOptions.DryRun) == 0 {
			out = append(out, p.GetName())
		}
	}
	return out
}

func (h *harness) storageCondition() *metav1.Condition {
	return meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionStorageResized)
}

func claimName(ordinal int) string { return fmt.Sprintf("datadir-%s-%d", testName, ordinal) }

// A growth on a class that allows it: every claim is asked for the new size at once, the
// StatefulSet is made again with the new claim template and keeps its pods, the one claim
// whose file system waits for a restart gets its pod, and only its pod, restarted through the
// rollout; status shows each claim until all have the size, and a later scale-up is made from
// the new template.
func TestAStorageGrowthExpandsEveryClaimAndTheClaimTemplate(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpOnClass("expandable", true)
	before := h.podUIDs()
	stsBefore := h.statefulSet()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Storage.Size = resource.MustParse("20Gi") })
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if got := h.claim(claimName(i)).Spec.Resources.Requests[corev1.ResourceStorage]; got.String() != "20Gi" {
			t.Errorf("claim %s asks for %s after the growth, want 20Gi", claimName(i), got.String())
		}
	}
	sts := h.statefulSet()
	if got := objects.ClaimTemplateSize(sts); got.String() != "20Gi" {
		t.Errorf("claim template asks for %s, want 20Gi", got.String())
	}
	if sts.UID == stsBefore.UID {
		t.Errorf("the StatefulSet was not made again")
	}
	if sts.Annotations[objects.AnnotationSeeds] != stsBefore.Annotations[objects.AnnotationSeeds] ||
		sts.Spec.Template.Annotations[objects.AnnotationTemplateHash] != stsBefore.Spec.Template.Annotations[objects.AnnotationTemplateHash] {
		t.Errorf("the StatefulSet made again has another pod template or seeds: %v, want %v", sts.Annotations, stsBefore.Annotations)
	}
	deleted := false
	for _, a := range h.kube.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok && a.GetResource().Resource == "statefulsets" {
			deleted = true
			if pp := d.DeleteOptions.PropagationPolicy; pp == nil || *pp != metav1.DeletePropagationOrphan {
				t.Errorf("StatefulSet deleted with propagation %v, want Orphan", pp)
			}
		}
	}
	if !deleted {
		t.Errorf("no StatefulSet delete")
	}
	if c := h.storageCondition(); c == nil || c.Status != metav1.ConditionFalse || c.Reason != step.ReasonStorageResizing {
		t.Fatalf("StorageResized = %+v while the claims grow", c)
	}

	// The resizer grows claims 0 and 2; claim 1's file system waits for its pod.
	h.resize(claimName(0), false)
	h.resize(claimName(2), false)
	h.resize(claimName(1), true)
	h.reconcileAfterPoll()
	st := h.stored().Status.Storage
	if st == nil || len(st.Claims) != 3 || st.Claims[0].State != v1alpha1.ClaimResized || st.Claims[1].State != v1alpha1.ClaimFileSystemResizePending {
		t.Fatalf("status.storage = %+v", st)
	}
	if got := h.podUIDs(); got[testName+"-1"] != before[testName+"-1"] {
		t.Fatalf("pod restarted within the grace of FileSystemResizePending")
	}

	h.clock.Step(step.ResizeRestartGrace)
	for range 20 {
		h.reconcileAfterPoll()
		if h.podUIDs()[testName+"-1"] != before[testName+"-1"] {
			break
		}
	}
	after := h.podUIDs()
	if after[testName+"-1"] == before[testName+"-1"] {
		t.Fatalf("pod %s-1 not restarted for its claim's file system: %+v", testName, h.stored().Status)
	}
	for _, o := range []int{0, 2} {
		if name := fmt.Sprintf("%s-%d", testName, o); after[name] != before[name] {
			t.Errorf("pod %s restarted, but its claim needed no restart", name)
		}
	}
	if !strings.Contains(strings.Join(h.events(), "\n"), step.ResizeRestartBy(claimName(1))) {
		t.Errorf("no restart event names the claim: %v", h.events())
	}
	// The kubelet grew the file system when the new pod mounted the volume.
	h.resize(claimName(1), false)
	for range 20 {
		h.reconcileAfterPoll()
		if c := h.storageCondition(); h.stored().Status.Restart == nil && c != nil && c.Status == metav1.ConditionTrue {
			break
		}
	}
	if c := h.storageCondition(); c == nil || c.Status != metav1.ConditionTrue || c.Reason != step.ReasonStorageResized {
		t.Fatalf("StorageResized = %+v once every claim has the size", c)
	}
	if got := h.podDeletes(); len(got) != 1 {
		t.Errorf("pods deleted %v, want only %s-1's", got, testName)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 4 })
	h.settle(10)
	if got := objects.ClaimTemplateSize(h.statefulSet()); got.String() != "20Gi" {
		t.Errorf("after a scale-up the claim template asks for %s, want 20Gi", got.String())
	}
	if n := len(h.pods()); n != 4 {
		t.Errorf("%d pods after the scale-up, want 4", n)
	}
}

// A growth on a class that does not allow expansion changes nothing: no claim is patched, the
// StatefulSet stays as it is, StorageResized names the class, and one Warning event says so.
func TestAStorageGrowthOnAClassWithoutExpansionChangesNothing(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpOnClass("fixed", false)
	stsUID := h.statefulSet().UID

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Storage.Size = resource.MustParse("20Gi") })
	for range 3 {
		h.reconcileAfterPoll()
	}
	if got := h.claimPatches(); len(got) != 0 {
		t.Errorf("claims patched %v on a class that does not allow expansion", got)
	}
	sts := h.statefulSet()
	if size := objects.ClaimTemplateSize(sts); sts.UID != stsUID || size.String() != "10Gi" {
		t.Errorf("the StatefulSet changed: uid %s (was %s), claim template %s", sts.UID, stsUID, size.String())
	}
	c := h.storageCondition()
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != step.ReasonStorageExpansionNotAllowed || !strings.Contains(c.Message, `"fixed"`) {
		t.Fatalf("StorageResized = %+v, want False StorageExpansionNotAllowed naming the class", c)
	}
	if warnings, all := h.countEvents("Warning "+step.ReasonStorageExpansionNotAllowed, `"fixed"`); warnings != 1 {
		t.Errorf("%d Warning events %s naming the class, want 1: %v", warnings, step.ReasonStorageExpansionNotAllowed, all)
	}
}

// A claim kube-apiserver refuses to expand (here an admission plugin's Forbidden) is no error
// loop: StorageResized says so, with one Warning event, and no claim nor the StatefulSet
// // changes, since every claim is tried with a dry run first.
func TestAClaimTheAPIServerRefusesToExpandIsReported(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpOnClass("expandable", true)
	stsUID := h.statefulSet().UID
	h.kube.PrependReactor("patch", "persistentvolumeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.PatchActionImpl).GetName() != claimName(1) {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(claimsGVR.GroupResource(), claimName(1), errors.New("only dynamically provisioned pvc can be resized"))
	})

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Storage.Size = resource.MustParse("20Gi") })
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatalf("reconcile: %v", err)
		}
	}
	c := h.storageCondition()
	if c == nil || c.Reason != step.ReasonStorageExpansionRefused || !strings.Contains(c.Message, claimName(1)) {
		t.Fatalf("StorageResized = %+v, want StorageExpansionRefused naming %s", c, claimName(1))
	}
	if h.statefulSet().UID != stsUID {
		t.Errorf("the StatefulSet was made again although a claim could not grow")
	}
	for i := range 3 {
		if got := h.claim(claimName(i)).Spec.Resources.Requests[corev1.ResourceStorage]; got.String() != "10Gi" {
			t.Errorf("claim %s asks for %s, want it unchanged: the dry run found the refusal first", claimName(i), got.String())
		}
	}
	if warnings, all := h.countEvents("Warning "+step.ReasonStorageExpansionRefused, ""); warnings != 1 {
		t.Errorf("%d Warning events %s, want 1: %v", warnings, step.ReasonStorageExpansionRefused, all)
	}
}

// While a restart is under way the StatefulSet is not made again: the rollout needs it to make
// the restarted pod. It is made once the restart has finished.
func TestTheClaimTemplateWaitsForARestartUnderWay(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpOnClass("expandable", true)
	stsUID := h.statefulSet().UID
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.1.2" })
	for range 10 {
		h.reconcileAfterPoll()
		if h.stored().Status.Restart != nil {
			break
		}
	}
	if h.stored().Status.Restart == nil {
		t.Fatal("no restart started")
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Storage.Size = resource.MustParse("20Gi") })
	h.reconcileAfterPoll()
	remade := false
	for range 40 {
		if h.stored().Status.Restart != nil && h.statefulSet().UID != stsUID {
			t.Fatalf("the StatefulSet was made again while a restart was under way: %+v", h.stored().Status.Restart)
		}
		if h.statefulSet().UID != stsUID {
			remade = true
			break
		}
		h.reconcileAfterPoll()
	}
	if !remade {
		t.Fatalf("the StatefulSet was not made again after the rollout: %+v", h.stored().Status)
	}
	if got := objects.ClaimTemplateSize(h.statefulSet()); got.String() != "20Gi" {
		t.Errorf("claim template asks for %s, want 20Gi", got.String())
	}
}

// A StatefulSet that is gone while its pods stay (deleted with its pods orphaned, and the
// operator restarted before it made it again) is made with the seeds the pods were made with,
// not with the replica count: a cluster founded by 3 brokers and grown to 4 keeps its pod
// template, and no pod becomes outdated.
func TestAStatefulSetGoneUnderItsPodsIsMadeWithTheirSeeds(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 4 })
	h.settle(10)
	before := h.statefulSet()
	uids := h.podUIDs()
	if err := h.kube.AppsV1().StatefulSets(testNamespace).Delete(h.ctx, testName, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan)}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	for range 3 {
		h.reconcileAfterPoll()
	}
	sts := h.statefulSet()
	if sts == nil || sts.UID == before.UID {
		t.Fatal("the StatefulSet was not made again")
	}
	if got, want := sts.Annotations[objects.AnnotationSeeds], before.Annotations[objects.AnnotationSeeds]; got != want || got != "3" {
		t.Errorf("seeds %s, want %s", got, want)
	}
	if got, want := sts.Spec.Template.Annotations[objects.AnnotationTemplateHash], before.Spec.Template.Annotations[objects.AnnotationTemplateHash]; got != want {
		t.Errorf("pod template %s, want the pods' %s", got, want)
	}
	if st := h.stored().Status; st.Restart != nil || st.UpdatedReplicas != 4 {
		t.Errorf("status %+v after the StatefulSet was made again, want no restart and every pod updated", st)
	}
	if got := h.podUIDs(); !maps.Equal(got, uids) {
		t.Errorf("pods %v, were %v", got, uids)
	}
}

// A StatefulSet made again takes its founding seeds from the pods, not from the replica
// count: a cluster founded by 3 brokers and grown to 4 keeps 3 seeds, so its pods are not
// outdated.
func TestSeedsComeFromThePodsWhileTheStatefulSetIsGone(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 4 })
	h.settle(10)
	pods := map[int]*corev1.Pod{}
	for _, p := range h.pods() {
		pods[len(pods)] = &p
	}
	if got := objects.Seeds(nil, pods, 4); got != 3 {
		t.Errorf("seeds from the pods = %d, want 3", got)
	}
	var sts *appsv1.StatefulSet
	if got := objects.Seeds(sts, nil, 4); got != 4 {
		t.Errorf("seeds of a new cluster = %d, want 4", got)
	}
}
