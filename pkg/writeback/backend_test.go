package writeback

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/dynamic/dynamiclister"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/metadata"
	fakemetadata "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// A backend is one family of clients, informers and listers the overlay serves: generated typed
// clients, the dynamic client, or the metadata client. The contract tests are written once
// against ConfigMaps; each backend translates between that view and its own objects, so the
// same tests check every family.
type backend struct {
	name string
	// server builds the fake API server (assigning resourceVersions, with its ConfigMap watch
	// held by h.holder) and the informer over it: h.informer.
	server func(h *harness)
	// clients builds, once h.overlay exists, the writer that records into it (h.writer), one
	// that does not (h.others: another actor) and the lister on the overlay (h.lister).
	clients func(h *harness)
	// view turns what the informer or the overlay holds into the tests' ConfigMap.
	view func(obj interface{}) *corev1.ConfigMap
	// stored turns the tests' ConfigMap into what the informer holds, to Record by hand.
	stored func(cm *corev1.ConfigMap) k8sruntime.Object
}

// writer is what the contract tests write through: any backend's client, seen as ConfigMaps.
type writer interface {
	Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error)
	Update(ctx context.Context, cm *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

var typedBackend = &backend{
	name: "typed",
	server: func(h *harness) {
		h.cs = fake.NewClientset()
		tracker := writebacktest.StampServerFields(&h.cs.Fake, h.cs.Tracker())
		h.cs.PrependWatchReactor("configmaps", h.watches.Reactor(writebacktest.WatchReactor(tracker, h.holder.Wrap)))
		h.informer = informers.NewSharedInformerFactory(h.cs, 0).Core().V1().ConfigMaps().Informer()
	},
	clients: func(h *harness) {
		h.client = Wrap(h.cs.CoreV1().ConfigMaps(testNamespace), testNamespace, h.overlay)
		h.external = Wrap(h.cs.CoreV1().ConfigMaps(testNamespace), testNamespace, NewOverlay("unused", cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil), Options{}))
		h.writer, h.others = h.client, h.external
		h.lister = corelisters.NewConfigMapLister(h.overlay)
	},
	view:   func(obj interface{}) *corev1.ConfigMap { return obj.(*corev1.ConfigMap) },
	stored: func(cm *corev1.ConfigMap) k8sruntime.Object { return cm },
}

var dynamicBackend = &backend{
	name: "dynamic",
	server: func(h *harness) {
		dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(k8sruntime.NewScheme(), map[schema.GroupVersionResource]string{configMapsGVR: "ConfigMapList"})
		tracker := writebacktest.StampServerFields(&dyn.Fake, dyn.Tracker())
		dyn.PrependWatchReactor("configmaps", h.watches.Reactor(writebacktest.WatchReactor(tracker, h.holder.Wrap)))
		h.dynamic = dyn
		h.informer = dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0).ForResource(configMapsGVR).Informer()
	},
	clients: func(h *harness) {
		ns := h.dynamic.Resource(configMapsGVR).Namespace(testNamespace)
		h.writer = dynamicWriter{WrapDynamic(ns, testNamespace, h.overlay)}
		h.others = dynamicWriter{ns}
		h.lister = configMapsFromUnstructured{dynamiclister.New(h.overlay, configMapsGVR)}
		h.overlay.asStored = asUnstructuredFor(configMapsGVR) // as NewDynamic sets it
	},
	view: func(obj interface{}) *corev1.ConfigMap { return fromUnstructured(obj.(*unstructured.Unstructured)) },
	// A typed object recorded into a dynamic overlay is converted by the overlay itself.
	stored: func(cm *corev1.ConfigMap) k8sruntime.Object { return cm },
}

var metadataBackend = &backend{
	name: "metadata",
	server: func(h *harness) {
		md := fakemetadata.NewSimpleMetadataClient(fakemetadata.NewTestScheme())
		tracker := writebacktest.StampServerFields(&md.Fake, md.Tracker())
		md.PrependWatchReactor("configmaps", h.watches.Reactor(writebacktest.WatchReactor(tracker, h.holder.Wrap)))
		h.metadata = md
		h.informer = metadatainformer.NewSharedInformerFactory(md, 0).ForResource(configMapsGVR).Informer()
	},
	clients: func(h *harness) {
		ns := h.metadata.Resource(configMapsGVR).Namespace(testNamespace)
		h.writer = metadataWriter{ns: ns, client: WrapMetadata(ns, testNamespace, h.overlay), overlay: h.overlay}
		h.others = metadataWriter{ns: ns, client: ns}
		h.lister = configMapsFromMetadata{metadatalister.New(h.overlay, configMapsGVR)}
		h.overlay.asStored = asPartialObjectMetadata // as NewMetadata sets it
	},
	view:   func(obj interface{}) *corev1.ConfigMap { return fromMetadata(obj.(*metav1.PartialObjectMetadata)) },
	stored: func(cm *corev1.ConfigMap) k8sruntime.Object { return toMetadata(cm) },
}

// backends maps the *testing.T of a contract test run for a backend other than the typed one.
var backends sync.Map

func backendOf(t *testing.T) *backend {
	if b, ok := backends.Load(t); ok {
		return b.(*backend)
	}
	return typedBackend
}

// newHarnessFor is newHarness with backend b.
func newHarnessFor(t *testing.T, b *backend) *harness {
	backends.Store(t, b)
	t.Cleanup(func() { backends.Delete(t) })
	return newHarness(t)
}

// runContract runs each contract test as a subtest with b as its backend. A contract test
// must call newHarness with the t it is given (not a subtest's), which is how it finds b.
func runContract(t *testing.T, b *backend, tests []func(*testing.T)) {
	for _, test := range tests {
		name := runtime.FuncForPC(reflect.ValueOf(test).Pointer()).Name()
		name = name[strings.LastIndex(name, ".")+1:]
		t.Run(name, func(t *testing.T) {
			backends.Store(t, b)
			defer backends.Delete(t)
			test(t)
		})
	}
}

func TestContractDynamic(t *testing.T)  { runContract(t, dynamicBackend, contractTests) }
func TestContractMetadata(t *testing.T) { runContract(t, metadataBackend, contractTests) }

// The ConfigMap view of an unstructured object, and back.

func toUnstructured(cm *corev1.ConfigMap) *unstructured.Unstructured {
	content, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil {
		panic(err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	return u
}

func fromUnstructured(u *unstructured.Unstructured) *corev1.ConfigMap {
	if u == nil {
		return nil
	}
	var cm corev1.ConfigMap
	if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cm); err != nil {
		panic(err)
	}
	return &cm
}

type dynamicWriter struct{ c dynamic.ResourceInterface }

func (w dynamicWriter) Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error) {
	u, err := w.c.Create(ctx, toUnstructured(cm), opts)
	return fromUnstructured(u), err
}

func (w dynamicWriter) Update(ctx context.Context, cm *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	u, err := w.c.Update(ctx, toUnstructured(cm), opts)
	return fromUnstructured(u), err
}

func (w dynamicWriter) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return w.c.Delete(ctx, name, opts)
}

type configMapsFromUnstructured struct{ l dynamiclister.Lister }

func (l configMapsFromUnstructured) List(selector labels.Selector) ([]*corev1.ConfigMap, error) {
	items, err := l.l.List(selector)
	return convertAll(items, fromUnstructured), err
}

func (l configMapsFromUnstructured) ConfigMaps(ns string) corelisters.ConfigMapNamespaceLister {
	return unstructuredNamespace{l.l.Namespace(ns)}
}

type unstructuredNamespace struct{ l dynamiclister.NamespaceLister }

func (l unstructuredNamespace) List(selector labels.Selector) ([]*corev1.ConfigMap, error) {
	items, err := l.l.List(selector)
	return convertAll(items, fromUnstructured), err
}

func (l unstructuredNamespace) Get(name string) (*corev1.ConfigMap, error) {
	u, err := l.l.Get(name)
	return fromUnstructured(u), err
}

// The ConfigMap view of metadata: a metadata-only object has no data, so the view's data
// travels in annotations with dataPrefix.

const dataPrefix = "data.writeback.test/"

func toMetadata(cm *corev1.ConfigMap) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: *cm.ObjectMeta.DeepCopy()}
	if len(cm.Data) > 0 {
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		for k, v := range cm.Data {
			m.Annotations[dataPrefix+k] = v
		}
	}
	return m
}

func fromMetadata(m *metav1.PartialObjectMetadata) *corev1.ConfigMap {
	if m == nil {
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: *m.ObjectMeta.DeepCopy()}
	for k, v := range m.Annotations {
		if name, ok := strings.CutPrefix(k, dataPrefix); ok {
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[name] = v
			delete(cm.Annotations, k)
		}
	}
	if len(cm.Annotations) == 0 {
		cm.Annotations = nil
	}
	return cm
}

// metadataWriter writes metadata. The metadata API has no create or update: a controller that
// reads through a metadata informer creates with another client and records the result (the
// fake's CreateFake and UpdateFake stand in for that client here); its own metadata changes
// are patches through WrapMetadata.
type metadataWriter struct {
	ns      metadata.ResourceInterface // the fake, for CreateFake and UpdateFake
	client  metadata.ResourceInterface // Patch and Delete; recording or not
	overlay *Overlay                   // nil: another actor, nothing recorded
}

type fakeMetadataWriter interface {
	CreateFake(obj *metav1.PartialObjectMetadata, opts metav1.CreateOptions, subresources ...string) (*metav1.PartialObjectMetadata, error)
	UpdateFake(obj *metav1.PartialObjectMetadata, opts metav1.UpdateOptions, subresources ...string) (*metav1.PartialObjectMetadata, error)
}

func (w metadataWriter) Create(_ context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error) {
	m, err := w.ns.(fakeMetadataWriter).CreateFake(toMetadata(cm), opts)
	if err == nil && w.overlay != nil {
		w.overlay.Record(m)
	}
	return fromMetadata(m), err
}

// Update of a recording writer is a merge patch of the object's metadata through WrapMetadata;
// another actor updates the whole object.
func (w metadataWriter) Update(ctx context.Context, cm *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	if w.overlay == nil {
		m, err := w.ns.(fakeMetadataWriter).UpdateFake(toMetadata(cm), opts)
		return fromMetadata(m), err
	}
	m := toMetadata(cm)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels": m.Labels, "annotations": m.Annotations, "finalizers": m.Finalizers,
	}})
	if err != nil {
		return nil, err
	}
	out, err := w.client.Patch(ctx, cm.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return fromMetadata(out), err
}

func (w metadataWriter) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return w.client.Delete(ctx, name, opts)
}

type configMapsFromMetadata struct{ l metadatalister.Lister }

func (l configMapsFromMetadata) List(selector labels.Selector) ([]*corev1.ConfigMap, error) {
	items, err := l.l.List(selector)
	return convertAll(items, fromMetadata), err
}

func (l configMapsFromMetadata) ConfigMaps(ns string) corelisters.ConfigMapNamespaceLister {
	return metadataNamespace{l.l.Namespace(ns)}
}

type metadataNamespace struct {
	l metadatalister.NamespaceLister
}

func (l metadataNamespace) List(selector labels.Selector) ([]*corev1.ConfigMap, error) {
	items, err := l.l.List(selector)
	return convertAll(items, fromMetadata), err
}

func (l metadataNamespace) Get(name string) (*corev1.ConfigMap, error) {
	m, err := l.l.Get(name)
	return fromMetadata(m), err
}

func convertAll[T any](items []T, convert func(T) *corev1.ConfigMap) []*corev1.ConfigMap {
	out := make([]*corev1.ConfigMap, 0, len(items))
	for _, it := range items {
		out = append(out, convert(it))
	}
	return out
}

// contractTests are the tests of doc.go's contract (contract_test.go). They run as written for
// the typed backend, and under TestContractDynamic and TestContractMetadata for the others.
var contractTests = []func(*testing.T){
	TestGetReturnsOwnUpdateBeforeInformerSeesIt,
	TestNewerInformerCopyWinsOverEntry,
	TestCreateVisibleBeforeWatchDeliversIt,
	TestDeleteHidesObjectBeforeInformerSeesIt,
	TestRecreatedObjectWinsOverTombstone,
	TestNewUIDEvictsTombstone,
	TestLabelSelectorJudgedOnServedCopy,
	TestIndexJudgedOnServedCopy,
	TestOlderEventDoesNotEvict,
	TestLateWriteResultDoesNotRollBack,
	TestWriteAlreadyObservedIsNotStored,
	TestIncomparableResourceVersionKeptUntilNextEvent,
	TestTombstoneOfTerminatingObject,
	TestDeleteUsesPreconditionUID,
	TestDeleteOfUnknownObjectStoresNothing,
}
