package main

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// stepAnnotation holds the step an object is at: the next one the controller must act on.
const stepAnnotation = "bench/step"

// recordKind is the kind a decision controller records its steps in. The controller always
// watches ConfigMaps; it records its steps in the watched ConfigMap itself, or, to model a
// controller that writes one kind and watches another, in a Secret of the same name, whose
// changes enqueue nothing.
type recordKind struct {
	resource string
	gr       schema.GroupResource
	informer func(informers.SharedInformerFactory) cache.SharedIndexInformer
	create   func(ctx context.Context, c kubernetes.Interface, ns, name string) error
	patch    func(ctx context.Context, c kubernetes.Interface, ns, name string, data []byte) (metav1.Object, error)
	patchWB  func(ctx context.Context, c kubernetes.Interface, o *writeback.Overlay, ns, name string, data []byte) (metav1.Object, error)
	get      func(ctx context.Context, c kubernetes.Interface, ns, name string) (metav1.Object, error)
	newCR    func() crclient.Object
}

var configMapRecord = recordKind{
	resource: "configmaps",
	gr:       schema.GroupResource{Resource: "configmaps"},
	informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().ConfigMaps().Informer()
	},
	create: func(ctx context.Context, c kubernetes.Interface, ns, name string) error {
		_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		return err
	},
	patch: func(ctx context.Context, c kubernetes.Interface, ns, name string, data []byte) (metav1.Object, error) {
		return asObject(c.CoreV1().ConfigMaps(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}))
	},
	patchWB: func(ctx context.Context, c kubernetes.Interface, o *writeback.Overlay, ns, name string, data []byte) (metav1.Object, error) {
		return asObject(writeback.Wrap(c.CoreV1().ConfigMaps(ns), ns, o).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}))
	},
	get: func(ctx context.Context, c kubernetes.Interface, ns, name string) (metav1.Object, error) {
		return asObject(c.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{}))
	},
	newCR: func() crclient.Object { return &corev1.ConfigMap{} },
}

var secretRecord = recordKind{
	resource: "secrets",
	gr:       schema.GroupResource{Resource: "secrets"},
	informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().Secrets().Informer()
	},
	create: func(ctx context.Context, c kubernetes.Interface, ns, name string) error {
		_, err := c.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		return err
	},
	patch: func(ctx context.Context, c kubernetes.Interface, ns, name string, data []byte) (metav1.Object, error) {
		return asObject(c.CoreV1().Secrets(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}))
	},
	patchWB: func(ctx context.Context, c kubernetes.Interface, o *writeback.Overlay, ns, name string, data []byte) (metav1.Object, error) {
		return asObject(writeback.Wrap(c.CoreV1().Secrets(ns), ns, o).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}))
	},
	get: func(ctx context.Context, c kubernetes.Interface, ns, name string) (metav1.Object, error) {
		return asObject(c.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{}))
	},
	newCR: func() crclient.Object { return &corev1.Secret{} },
}

// asObject drops the typed nil a failed client call returns with its error.
func asObject[T metav1.Object](obj T, err error) (metav1.Object, error) {
	if err != nil {
		return nil, err
	}
	return obj, nil
}

// fromStore turns what a store's GetByKey answered into an object, nil when absent.
func fromStore(obj any, exists bool, err error) (metav1.Object, error) {
	if err != nil || !exists {
		return nil, err
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("store holds a %T, not an object", obj)
	}
	return m, nil
}

// stepOf is the step recorded in obj: 0 before the first write.
func stepOf(obj metav1.Object) (int, error) {
	text, ok := obj.GetAnnotations()[stepAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.Atoi(text)
}

// stepPatch is the JSON merge patch that records step.
func stepPatch(step int) []byte {
	return fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"%d"}}}`, stepAnnotation, step)
}
