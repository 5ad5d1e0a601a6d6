//go:build e2e

package clients

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/race"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// Each write through the dynamic, metadata and typed clients is read back at once, with every
// watch delayed by 10-30 ms: the plain dynamic lister reads its own past, the overlays never.
func TestDynamicAndMetadataReadOwnWrites(t *testing.T) {
	const objects, rounds = 10, 3
	cp := framework.StartForTest(t, framework.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	admin := kubernetes.NewForConfigOrDie(cp.AdminConfig())
	const ns = "clients"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cfg := cp.AdminConfig()
	cfg.WrapTransport = race.NewRecorder(race.RecorderOptions{Lag: harness.Lag{Min: 10 * time.Millisecond, Max: 30 * time.Millisecond}, Seed: 1}).Wrap
	dyn := dynamic.NewForConfigOrDie(cfg)
	md := metadata.NewForConfigOrDie(cfg)
	typed := kubernetes.NewForConfigOrDie(cfg)
	dynFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, ns, nil)
	mdFactory := metadatainformer.NewFilteredSharedInformerFactory(md, 0, ns, nil)
	dynOverlay, dynSynced, err := writeback.NewDynamic(dynFactory, configMaps, writeback.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mdOverlay, mdSynced, err := writeback.NewMetadata(mdFactory, configMaps, writeback.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dynFactory.Start(ctx.Done())
	mdFactory.Start(ctx.Done())
	defer func() { cancel(); dynFactory.Shutdown(); mdFactory.Shutdown() }()
	if !cache.WaitForCacheSync(ctx.Done(), dynSynced, mdSynced) {
		t.Fatal("informers did not sync")
	}

	dynClient := writeback.WrapDynamic(dyn.Resource(configMaps).Namespace(ns), ns, dynOverlay)
	mdClient := writeback.WrapMetadata(md.Resource(configMaps).Namespace(ns), ns, mdOverlay)
	typedIntoMetadata := writeback.Wrap(typed.CoreV1().ConfigMaps(ns), ns, mdOverlay)
	dynLister := dynamiclister.New(dynOverlay, configMaps).Namespace(ns)
	mdLister := metadatalister.New(mdOverlay, configMaps).Namespace(ns)
	plainLister := dynamiclister.New(dynFactory.ForResource(configMaps).Informer().GetIndexer(), configMaps).Namespace(ns)

	stale := map[string]int{}
	check := func(path, written string, read metav1.Object, err error) {
		t.Helper()
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		if err != nil {
			stale[path]++
			return
		}
		if c, cerr := resourceversion.CompareResourceVersion(read.GetResourceVersion(), written); cerr != nil || c < 0 {
			stale[path]++
		}
	}

	// Creates through the dynamic client are served at once by its overlay's lister.
	for i := range objects {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetName(fmt.Sprintf("cm-%d", i))
		created, err := dynClient.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := dynLister.Get(created.GetName())
		check("dynamic create", created.GetResourceVersion(), got, err)
	}
	for round := range rounds {
		for i := range objects {
			name := fmt.Sprintf("cm-%d", i)
			patch := fmt.Appendf(nil, `{"metadata":{"annotations":{"round":"%d"}}}`, round)

			written, err := dynClient.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := dynLister.Get(name)
			check("dynamic patch", written.GetResourceVersion(), got, err)
			plain, err := plainLister.Get(name)
			check("plain dynamic lister", written.GetResourceVersion(), plain, err)

			pm, err := mdClient.Patch(ctx, name, types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{"round":"%d"}}}`, round), metav1.PatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotMeta, err := mdLister.Get(name)
			check("metadata patch", pm.ResourceVersion, gotMeta, err)

			cm, err := typedIntoMetadata.Patch(ctx, name, types.MergePatchType, fmt.Appendf(nil, `{"data":{"round":"%d"}}`, round), metav1.PatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotMeta, err = mdLister.Get(name)
			check("typed patch into metadata", cm.ResourceVersion, gotMeta, err)
		}
	}
	// Deletes hide the object at once.
	if err := dynClient.Delete(ctx, "cm-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dynLister.Get("cm-0"); !apierrors.IsNotFound(err) {
		stale["dynamic delete"]++
	}
	if err := mdClient.Delete(ctx, "cm-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := mdLister.Get("cm-1"); !apierrors.IsNotFound(err) {
		stale["metadata delete"]++
	}

	t.Logf("stale reads by path: %v", stale)
	if stale["plain dynamic lister"] == 0 {
		t.Fatal("the plain dynamic lister never read its own past: the watch delay did not take effect, so the test proves nothing")
	}
	for path, n := range stale {
		if path != "plain dynamic lister" && n > 0 {
			t.Errorf("%s: %d stale reads, want 0", path, n)
		}
	}
}
