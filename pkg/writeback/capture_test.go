package writeback

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// Every write method records its result, through the generated fake clientset.
func TestCaptureRecordsEveryWriteMethod(t *testing.T) {
	h := newHarness(t)
	served := func(name string) string { return rvOf(h.get(name)) }

	created := h.create(h.client, "a", nil)
	if served("a") != created.ResourceVersion {
		t.Fatalf("Create not recorded")
	}
	updated := h.update(h.client, created, func(cm *corev1.ConfigMap) { cm.Data["v"] = "u" })
	if served("a") != updated.ResourceVersion {
		t.Fatalf("Update not recorded")
	}
	status, err := h.client.UpdateStatus(h.ctx, updated, metav1.UpdateOptions{})
	if err != nil || served("a") != status.ResourceVersion {
		t.Fatalf("UpdateStatus not recorded (err %v)", err)
	}
	patched, err := h.client.Patch(h.ctx, "a", types.MergePatchType, []byte(`{"data":{"v":"p"}}`), metav1.PatchOptions{})
	if err != nil || served("a") != patched.ResourceVersion || h.get("a").Data["v"] != "p" {
		t.Fatalf("Patch not recorded (err %v)", err)
	}
	statusPatched, err := h.client.Patch(h.ctx, "a", types.MergePatchType, []byte(`{"data":{"v":"s"}}`), metav1.PatchOptions{}, "status")
	if err != nil || served("a") != statusPatched.ResourceVersion {
		t.Fatalf("Patch of status not recorded (err %v)", err)
	}
	applied, err := h.client.Apply(h.ctx, applycorev1.ConfigMap("a", testNamespace).WithData(map[string]string{"v": "apply"}), metav1.ApplyOptions{FieldManager: "test", Force: true})
	if err != nil || served("a") != applied.ResourceVersion || h.get("a").Data["v"] != "apply" {
		t.Fatalf("Apply not recorded (err %v, served %s, applied %s)", err, served("a"), rvOf(applied))
	}
	appliedStatus, err := h.client.ApplyStatus(h.ctx, applycorev1.ConfigMap("a", testNamespace).WithData(map[string]string{"v": "applystatus"}), metav1.ApplyOptions{FieldManager: "test", Force: true})
	if err != nil || served("a") != appliedStatus.ResourceVersion {
		t.Fatalf("ApplyStatus not recorded (err %v)", err)
	}
	if err := h.client.Delete(h.ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if h.get("a") != nil {
		t.Fatal("Delete not recorded")
	}
	// Create, Update, UpdateStatus, Patch, Patch status, Apply, ApplyStatus and Delete.
	h.catchUp(8)
	if h.overlay.Len() != 0 {
		t.Fatalf("overlay holds %d entries after catch-up", h.overlay.Len())
	}
}

// A failed write records nothing, and neither does a write of the scale subresource.
func TestCaptureSkipsFailuresAndScale(t *testing.T) {
	h := newHarness(t)
	created := h.create(h.client, "a", nil)
	h.catchUp(1)
	stale := created.DeepCopy()
	h.update(h.external, created, func(cm *corev1.ConfigMap) { cm.Data["v"] = "theirs" })
	h.catchUp(1)
	if _, err := h.client.Update(h.ctx, stale, metav1.UpdateOptions{}); err == nil {
		t.Fatal("update with a stale resourceVersion should conflict")
	}
	if _, err := h.client.Create(h.ctx, created, metav1.CreateOptions{}); err == nil {
		t.Fatal("second create should fail")
	}
	if h.overlay.Len() != 0 {
		t.Fatalf("a failed write was recorded")
	}
	// The fake has no scale subresource; whatever it answers must not be recorded.
	_, _ = h.client.Patch(h.ctx, "a", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{}, "scale")
	if h.overlay.Len() != 0 {
		t.Fatal("a scale write was recorded")
	}
}

// The same wrapper records writes made through the real clientset.
func TestCaptureWithRealClientset(t *testing.T) {
	var rv atomic.Int64
	rv.Store(100)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(metav1.Status{Status: metav1.StatusSuccess})
			return
		}
		var cm corev1.ConfigMap
		if err := json.NewDecoder(r.Body).Decode(&cm); err != nil && r.Method != http.MethodPatch {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		if r.Method == http.MethodPost {
			name = cm.Name
		}
		cm.TypeMeta = metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}
		cm.Name, cm.Namespace, cm.UID = name, testNamespace, "uid-1"
		cm.ResourceVersion = strconv.FormatInt(rv.Add(1), 10)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&cm)
	}))
	defer server.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: server.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	overlay := NewOverlay("configmaps", indexer, Options{})
	client := Wrap(cs.CoreV1().ConfigMaps(testNamespace), testNamespace, overlay)

	created, err := client.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if obj, ok, _ := overlay.GetByKey("ns/a"); !ok || obj.(*corev1.ConfigMap).ResourceVersion != created.ResourceVersion {
		t.Fatal("Create through the real clientset not recorded")
	}
	patched, err := client.Patch(t.Context(), "a", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if obj, _, _ := overlay.GetByKey("ns/a"); obj.(*corev1.ConfigMap).ResourceVersion != patched.ResourceVersion {
		t.Fatal("Patch through the real clientset not recorded")
	}
	if err := client.Delete(t.Context(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := overlay.GetByKey("ns/a"); ok {
		t.Fatal("Delete through the real clientset not recorded")
	}
}

// The recorded object is a copy: the caller may mutate what its client returned.
func TestRecordedObjectIsNotTheCallersObject(t *testing.T) {
	h := newHarness(t)
	created := h.create(h.client, "a", nil)
	created.Data["v"] = "mutated by caller"
	if h.get("a").Data["v"] != "0" {
		t.Fatal("the overlay shares the caller's object")
	}
}

// Issue: a dry run changes nothing on the server, so none of its answers may be recorded: a
// dry-run create would serve a phantom object, a dry-run delete would hide a live one.
func TestDryRunWritesAreNotRecorded(t *testing.T) {
	h := newHarness(t)
	live := h.create(h.client, "live", nil)
	h.catchUp(1)
	dry := []string{metav1.DryRunAll}
	empty := func(what string) {
		t.Helper()
		if n := h.overlay.entries.len(); n != 0 {
			t.Fatalf("dry-run %s recorded: %d entries", what, n)
		}
	}
	if _, err := h.client.Create(h.ctx, newConfigMap("phantom"), metav1.CreateOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	empty("Create")
	changed := live.DeepCopy()
	changed.Data["v"] = "dry"
	if _, err := h.client.Update(h.ctx, changed, metav1.UpdateOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	empty("Update")
	// The fake applies dry runs for real; take its latest copy for the next write.
	latest := func() *corev1.ConfigMap {
		cm, err := h.cs.CoreV1().ConfigMaps(testNamespace).Get(h.ctx, "live", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm
	}
	if _, err := h.client.UpdateStatus(h.ctx, latest(), metav1.UpdateOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	empty("UpdateStatus")
	if _, err := h.client.Patch(h.ctx, "live", types.MergePatchType, []byte(`{"data":{"v":"p"}}`), metav1.PatchOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	empty("Patch")
	apply := applycorev1.ConfigMap("live", testNamespace).WithData(map[string]string{"v": "apply"})
	if _, err := h.client.Apply(h.ctx, apply, metav1.ApplyOptions{FieldManager: "test", Force: true, DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	empty("Apply")
	if _, err := h.client.ApplyStatus(h.ctx, apply, metav1.ApplyOptions{FieldManager: "test", Force: true, DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	empty("ApplyStatus")
	if err := h.client.Delete(h.ctx, "live", metav1.DeleteOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	empty("Delete")
	if h.get("phantom") != nil {
		t.Fatal("a dry-run create is served")
	}
	if got := h.get("live"); got == nil || got.ResourceVersion != live.ResourceVersion {
		t.Fatalf("live object read %s, want the informer's %s", rvOf(got), live.ResourceVersion)
	}
}

// Issue: Patch with an empty subresource argument (the object itself, as helpers forward it)
// and subresources whose answer is the object (pods/resize, pods/ephemeralcontainers) are
// recorded; scale, whose answer is a Scale, is not.
func TestPatchRecordsWhenTheAnswerIsTheObject(t *testing.T) {
	cs := fake.NewClientset()
	writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	o := NewOverlay("pods", cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), Options{})
	pods := Wrap(cs.CoreV1().Pods(testNamespace), testNamespace, o)
	if _, err := cs.CoreV1().Pods(testNamespace).Create(t.Context(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: testNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, sub := range [][]string{{""}, {"resize"}, {"ephemeralcontainers"}, {"status"}, {}} {
		patched, err := pods.Patch(t.Context(), "p", types.MergePatchType, []byte(`{"metadata":{"labels":{"n":"x"}}}`), metav1.PatchOptions{}, sub...)
		if err != nil {
			t.Fatal(err)
		}
		got, found, _ := o.GetByKey(testNamespace + "/p")
		if !found || got.(*corev1.Pod).ResourceVersion != patched.ResourceVersion {
			t.Errorf("Patch with subresources %q not recorded", sub)
		}
	}
	if !objectSubresources["approval"] || objectSubresources["scale"] {
		t.Fatal("approval answers with the object, scale does not")
	}
}
