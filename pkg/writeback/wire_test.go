package writeback

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	fakemetadata "k8s.io/client-go/metadata/fake"
)

// A typed write result recorded into an overlay over a dynamic or metadata informer is served,
// by that informer's own lister, as the type the informer holds.
func TestNewDynamicAndNewMetadataServeTypedWrites(t *testing.T) {
	written := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "u1", ResourceVersion: "1000005"}, Data: map[string]string{"v": "1"}}
	for _, tc := range []struct {
		name  string
		wire  func(t *testing.T) (*Overlay, cache.InformerSynced)
		serve func(o *Overlay) (metav1.Object, error)
	}{{
		name: "dynamic",
		wire: func(t *testing.T) (*Overlay, cache.InformerSynced) {
			dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(k8sruntime.NewScheme(), map[schema.GroupVersionResource]string{configMapsGVR: "ConfigMapList"})
			factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
			o, synced, err := NewDynamic(factory, configMapsGVR, Options{})
			if err != nil {
				t.Fatal(err)
			}
			factory.Start(t.Context().Done())
			return o, synced
		},
		serve: func(o *Overlay) (metav1.Object, error) {
			u, err := dynamiclister.New(o, configMapsGVR).Namespace("ns").Get("a")
			if err == nil && u.Object["data"].(map[string]interface{})["v"] != "1" {
				t.Errorf("served %v, want the written data", u.Object)
			}
			return u, err
		},
	}, {
		name: "metadata",
		wire: func(t *testing.T) (*Overlay, cache.InformerSynced) {
			md := fakemetadata.NewSimpleMetadataClient(fakemetadata.NewTestScheme())
			factory := metadatainformer.NewSharedInformerFactory(md, 0)
			o, synced, err := NewMetadata(factory, configMapsGVR, Options{})
			if err != nil {
				t.Fatal(err)
			}
			factory.Start(t.Context().Done())
			return o, synced
		},
		serve: func(o *Overlay) (metav1.Object, error) {
			return metadatalister.New(o, configMapsGVR).Namespace("ns").Get("a")
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			o, synced := tc.wire(t)
			if !cache.WaitForCacheSync(t.Context().Done(), synced) {
				t.Fatal("not synced")
			}
			if o.Resource() != "configmaps" {
				t.Fatalf("resource label %q, want configmaps", o.Resource())
			}
			o.Record(written)
			got, err := tc.serve(o)
			if err != nil {
				t.Fatal(err)
			}
			if got.GetUID() != written.UID || got.GetResourceVersion() != written.ResourceVersion {
				t.Fatalf("served %s at %s, want %s at %s", got.GetUID(), got.GetResourceVersion(), written.UID, written.ResourceVersion)
			}
		})
	}
}

func TestNewObservingRefusesNil(t *testing.T) {
	if _, _, err := NewObserving("x", nil, Options{}); err == nil {
		t.Fatal("want an error for a nil informer")
	}
	if _, _, err := NewDynamic(nil, configMapsGVR, Options{}); err == nil {
		t.Fatal("want an error for a nil factory")
	}
	if _, _, err := NewMetadata(nil, configMapsGVR, Options{}); err == nil {
		t.Fatal("want an error for a nil factory")
	}
}

// NewObserving's HasSynced is the observer's registration's: it is false until the informer
// has delivered its initial list to the observer.
func TestNewObservingHasSyncedFollowsRegistration(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	informer := factory.Core().V1().ConfigMaps().Informer()
	_, synced, err := NewObserving("configmaps", informer, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if synced() {
		t.Fatal("synced before the informer ran")
	}
	factory.Start(t.Context().Done())
	if !cache.WaitForCacheSync(t.Context().Done(), synced) {
		t.Fatal("never synced")
	}
}

// The dynamic and metadata wrappers record what answers with the object and nothing else: no
// dry run, no other subresource.
func TestWrappersRecordOnlyRealWritesOfTheObject(t *testing.T) {
	dryRun := []string{metav1.DryRunAll}
	patch := []byte(`{"metadata":{"labels":{"x":"y"}}}`)
	t.Run("dynamic", func(t *testing.T) {
		h := newHarnessFor(t, dynamicBackend)
		h.create(h.others, "a", nil)
		h.catchUp(1)
		c := WrapDynamic(h.dynamic.Resource(configMapsGVR).Namespace(testNamespace), testNamespace, h.overlay)
		if _, err := c.Patch(h.ctx, "a", types.MergePatchType, patch, metav1.PatchOptions{DryRun: dryRun}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Patch(h.ctx, "a", types.MergePatchType, patch, metav1.PatchOptions{}, "scale"); err != nil {
			t.Fatal(err)
		}
		if n := h.overlay.Len(); n != 0 {
			t.Fatalf("recorded %d entries for a dry run and a scale patch, want 0", n)
		}
		if _, err := c.Patch(h.ctx, "a", types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
		if n := h.overlay.Len(); n != 1 {
			t.Fatalf("a status patch recorded %d entries, want 1", n)
		}
		dryRunDeleteLeavesNoTombstone(t, h, c.Delete)
	})
	t.Run("metadata", func(t *testing.T) {
		h := newHarnessFor(t, metadataBackend)
		h.create(h.others, "a", nil)
		h.catchUp(1)
		c := WrapMetadata(h.metadata.Resource(configMapsGVR).Namespace(testNamespace), testNamespace, h.overlay)
		if _, err := c.Patch(h.ctx, "a", types.MergePatchType, patch, metav1.PatchOptions{DryRun: dryRun}); err != nil {
			t.Fatal(err)
		}
		if n := h.overlay.Len(); n != 0 {
			t.Fatalf("recorded %d entries for a dry run, want 0", n)
		}
		if _, err := c.Patch(h.ctx, "a", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := h.get("a"); got == nil || got.Labels["x"] != "y" {
			t.Fatalf("read %+v after the patch, want its label", got)
		}
		dryRunDeleteLeavesNoTombstone(t, h, c.Delete)
	})
}

// dryRunDeleteLeavesNoTombstone deletes "a" with a dry run, last: the fake clients ignore
// DryRun and really delete.
func dryRunDeleteLeavesNoTombstone(t *testing.T, h *harness, del func(context.Context, string, metav1.DeleteOptions, ...string) error) {
	t.Helper()
	if err := del(h.ctx, "a", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if e := h.overlay.entries.get("ns/a"); e == nil || e.tombstone() {
		t.Fatalf("entry %+v after a dry-run delete, want the patch's entry, not a tombstone", e)
	}
}

// A dynamic overlay serves a typed write result with the apiVersion and kind every informer
// copy has, and refuses a metadata-only result, which is not the whole object.
func TestDynamicOverlayCompletesTypedResultsAndRefusesMetadataOnly(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	logger, logs := capturingLogger(0)
	o := NewOverlay("configmaps", store, Options{Logger: logger})
	o.asStored = asUnstructuredFor(configMapsGVR) // as NewDynamic sets it

	o.Record(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "5"}, Data: map[string]string{"v": "1"}})
	u, err := dynamiclister.New(o, configMapsGVR).Namespace("ns").Get("a")
	if err != nil {
		t.Fatal(err)
	}
	if u.GetAPIVersion() != "v1" || u.GetKind() != "ConfigMap" {
		t.Fatalf("served apiVersion %q kind %q, want v1 ConfigMap", u.GetAPIVersion(), u.GetKind())
	}

	o.Record(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", ResourceVersion: "6"}})
	if _, found, _ := o.GetByKey("ns/b"); found {
		t.Fatal("a metadata-only result was served as a whole object")
	}
	if !strings.Contains(logs(), "metadata-only") {
		t.Fatalf("want the refusal logged, got:\n%s", logs())
	}
}
