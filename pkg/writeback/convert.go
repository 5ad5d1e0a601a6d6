package writeback

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// An informer of the dynamic or the metadata client holds one type for every resource, and
// its lister type-asserts to it. A controller may still write with a typed client; these turn
// such a result into what the informer holds before the overlay stores it.

// asUnstructuredFor returns what turns a (deep-copied) write result into the
// *unstructured.Unstructured an informer of gvr holds.
//
// A typed result is converted, and given the apiVersion and kind every informer copy
// carries, which typed clients leave empty: the apiVersion of gvr, and the kind the object
// names, or else its Go type's name (the kind scheme registration gives it). A dynamic
// controller that writes back what it read then sends a whole object.
//
// A metadata-only result (*metav1.PartialObjectMetadata, from a metadata client) is refused:
// it has no spec, status or data, and served as an Unstructured it would be a copy the server
// never held.
func asUnstructuredFor(gvr schema.GroupVersionResource) func(runtime.Object) (runtime.Object, error) {
	return func(obj runtime.Object) (runtime.Object, error) {
		switch o := obj.(type) {
		case *unstructured.Unstructured:
			return o, nil
		case *metav1.PartialObjectMetadata:
			return nil, fmt.Errorf("a metadata-only result (%s %s/%s) cannot stand for a whole %s object: not recorded",
				o.Kind, o.Namespace, o.Name, gvr.GroupResource())
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: content}
		if u.GetAPIVersion() == "" {
			u.SetAPIVersion(gvr.GroupVersion().String())
		}
		if u.GetKind() == "" {
			if t := reflect.TypeOf(obj); t.Kind() == reflect.Pointer {
				u.SetKind(t.Elem().Name())
			}
		}
		return u, nil
	}
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
