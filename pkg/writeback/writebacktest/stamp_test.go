package writebacktest_test

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

func TestStampServerFieldsActsLikeAnAPIServer(t *testing.T) {
	ctx := t.Context()
	cs := fake.NewClientset()
	writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	w, err := cs.CoreV1().ConfigMaps("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	client := cs.CoreV1().ConfigMaps("ns")

	sent := named("a")
	created, err := client.Create(ctx, sent, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.ResourceVersion == "" || sent.ResourceVersion != "" {
		t.Fatalf("create returned uid %q rv %q and changed the sent object (rv %q)", created.UID, created.ResourceVersion, sent.ResourceVersion)
	}
	stale := created.DeepCopy()
	updated, err := client.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if atoi(t, updated.ResourceVersion) <= atoi(t, created.ResourceVersion) || updated.UID != created.UID {
		t.Fatalf("update: rv %s after %s, uid %s after %s", updated.ResourceVersion, created.ResourceVersion, updated.UID, created.UID)
	}
	if _, err := client.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("update with a stale resourceVersion: %v, want Conflict", err)
	}
	patched, err := client.Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{})
	if err != nil || atoi(t, patched.ResourceVersion) <= atoi(t, updated.ResourceVersion) {
		t.Fatalf("patch: rv %s after %s (err %v)", patched.ResourceVersion, updated.ResourceVersion, err)
	}
	wrongUID := types.UID("not-it")
	if err := client.Delete(ctx, "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with a wrong UID precondition: %v, want Conflict", err)
	}
	if err := client.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	last := 0
	for _, want := range []watch.EventType{watch.Added, watch.Modified, watch.Modified, watch.Deleted} {
		ev := receive(t, w)
		rv := atoi(t, ev.Object.(*corev1.ConfigMap).ResourceVersion)
		if ev.Type != want || rv <= last {
			t.Fatalf("event %s at %d after %d, want %s with a newer resourceVersion", ev.Type, rv, last, want)
		}
		last = rv
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return n
}

// A list carries the resourceVersion of the last write, and a watch from it delivers exactly
// the writes after it: the informer's progress never goes back when it relists.
func TestStampServerFieldsListResourceVersion(t *testing.T) {
	ctx := t.Context()
	cs := fake.NewClientset()
	writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	client := cs.CoreV1().ConfigMaps("ns")
	before, err := client.Create(ctx, named("before"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if list.ResourceVersion != before.ResourceVersion || len(list.Items) != 1 {
		t.Fatalf("list at %s with %d items, want at %s with 1", list.ResourceVersion, len(list.Items), before.ResourceVersion)
	}
	after, err := client.Create(ctx, named("after"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := receive(t, w); ev.Object.(*corev1.ConfigMap).Name != "after" || ev.Object.(*corev1.ConfigMap).ResourceVersion != after.ResourceVersion {
		t.Fatalf("watch from the list delivered %s at %s first, want after at %s", ev.Object.(*corev1.ConfigMap).Name, ev.Object.(*corev1.ConfigMap).ResourceVersion, after.ResourceVersion)
	}
	noEvent(t, w)
	relisted, err := client.List(ctx, metav1.ListOptions{})
	if err != nil || atoi(t, relisted.ResourceVersion) < atoi(t, after.ResourceVersion) {
		t.Fatalf("relist at %s (err %v), want at least %s", relisted.ResourceVersion, err, after.ResourceVersion)
	}
}
