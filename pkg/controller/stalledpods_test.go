package controller

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The StatefulSet controller can leave a pod unmade with nothing to requeue the set (a stale
// claim in its cache, then the claim's delete, which it does not watch). The operator touches
// the StatefulSet once the pod has been missing for stalledPodGrace, again after each further
// grace while it stays missing, and not at all once the pod is there. The touch changes no
// part of the spec.
func TestAPodTheStatefulSetDoesNotMakeGetsTheStatefulSetTouchedAfterItsGrace(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(2)
	specBefore := h.statefulSet().Spec
	name := testName + "-1"
	h.deletePodUnmade(name)
	// sync, not h.reconcile: the harness's StatefulSet player would make the pod at once, and
	// here the StatefulSet controller is the one that does not.
	sync := func() result {
		t.Helper()
		res, err := h.c.sync(h.ctx, testKey)
		if err != nil {
			t.Fatal(err)
		}
		h.syncInformers()
		return res
	}
	touched := func() string { return h.statefulSet().Annotations[AnnotationResyncedAt] }

	if res := sync(); res.RequeueAfter <= 0 || res.RequeueAfter > stalledPodGrace {
		t.Errorf("requeue after %v with pod %s missing, want a look again within %v", res.RequeueAfter, name, stalledPodGrace)
	}
	h.clock.Step(stalledPodGrace - time.Second)
	sync()
	if got := touched(); got != "" {
		t.Fatalf("StatefulSet touched at %s, within the grace of its missing pod", got)
	}

	h.clock.Step(time.Second)
	sync()
	first := h.clock.Now().UTC().Format(time.RFC3339)
	if got := touched(); got != first {
		t.Fatalf("StatefulSet %s = %q after pod %s was missing for %v, want %q", AnnotationResyncedAt, got, name, stalledPodGrace, first)
	}
	if !strings.Contains(strings.Join(h.events(), "\n"), "StatefulSetStalled") {
		t.Errorf("no StatefulSetStalled event in %v", h.events())
	}
	if after := h.statefulSet().Spec; !equality.Semantic.DeepEqual(after, specBefore) {
		t.Errorf("touching the StatefulSet changed its spec:\nbefore %+v\nafter  %+v", specBefore, after)
	}

	h.clock.Step(stalledPodGrace / 2)
	sync()
	if got := touched(); got != first {
		t.Fatalf("touched again at %s, half a grace after the first touch", got)
	}
	h.clock.Step(stalledPodGrace / 2)
	sync()
	second := h.clock.Now().UTC().Format(time.RFC3339)
	if got := touched(); got != second {
		t.Fatalf("StatefulSet %s = %q a grace after the first touch with the pod still missing, want %q", AnnotationResyncedAt, got, second)
	}

	h.playStatefulSet() // the StatefulSet controller makes the pod at last
	h.syncInformers()
	if res := sync(); res.RequeueAfter > 0 {
		t.Errorf("requeue after %v with every pod there, want none", res.RequeueAfter)
	}
	h.clock.Step(2 * stalledPodGrace)
	sync()
	if got := touched(); got != second {
		t.Errorf("StatefulSet touched at %s with every pod there", got)
	}
}

// A pool's pod the StatefulSet does not make gets the pool's StatefulSet touched after the
// grace, and no other pool's.
func TestAPoolsMissingPodGetsItsStatefulSetTouched(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	name := testName + "-blue-1"
	h.deletePodUnmade(name)
	touched := func(set string) string {
		sts, err := h.kube.AppsV1().StatefulSets(testNamespace).Get(h.ctx, set, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sts.Annotations[AnnotationResyncedAt]
	}
	for range 2 {
		if _, err := h.c.sync(h.ctx, testKey); err != nil {
			t.Logf("reconcile: %v", err)
		}
		h.syncInformers()
		h.clock.Step(stalledPodGrace)
	}
	if touched(testName+"-blue") == "" {
		t.Errorf("pool blue's StatefulSet was not touched while its pod %s was missing", name)
	}
	if touched(testName) != "" {
		t.Error("the default pool's StatefulSet was touched, though none of its pods is missing")
	}
}

// deletePodUnmade deletes the pod named name and waits until the pod informer has seen it go;
// nothing makes it again until the harness's StatefulSet player runs.
func (h *harness) deletePodUnmade(name string) {
	h.t.Helper()
	if err := h.kube.CoreV1().Pods(testNamespace).Delete(h.ctx, name, metav1.DeleteOptions{}); err != nil {
		h.t.Fatal(err)
	}
	h.syncInformers()
	h.await("the pod's delete in the informer", func() bool {
		_, ok, _ := h.nc.raw.pods.GetByKey(testNamespace + "/" + name)
		return !ok
	})
}
