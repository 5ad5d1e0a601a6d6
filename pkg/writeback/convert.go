package writeback

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// An informer of the dynamic or the metadata client holds one type for every resource, and
// its lister type-asserts to it. A controller may still write with a typed client; these turn
// such a result into what the informer holds before the overlay stores it.

// asUnstructured turns a (deep-copied) write result into *unstructured.Unstructured.
func asUnstructured(obj runtime.Object) (runtime.Object, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// asPartialObjectMetadata turns a (deep-copied) write result into *metav1.PartialObjectMetadata.
func asPartialObjectMetadata(obj runtime.Object) (runtime.Object, error) {
	if p, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return p, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	p := meta.AsPartialObjectMetadata(m)
	p.APIVersion, p.Kind = obj.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
	return p, nil
}
