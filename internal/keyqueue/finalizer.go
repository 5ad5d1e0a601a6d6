package keyqueue

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Object is a generated API type: a pointer whose DeepCopy returns its own type.
type Object[T any] interface {
	metav1.Object
	DeepCopy() T
}

// SetFinalizer adds finalizer to obj, or removes it, with one update of a copy, unless obj
// already has it as wanted. It returns what update wrote, or obj.
func SetFinalizer[T Object[T]](ctx context.Context, obj T, finalizer string, want bool, update func(context.Context, T, metav1.UpdateOptions) (T, error)) (T, error) {
	if want == slices.Contains(obj.GetFinalizers(), finalizer) {
		return obj, nil
	}
	cp := obj.DeepCopy()
	if want {
		cp.SetFinalizers(append(cp.GetFinalizers(), finalizer))
	} else {
		cp.SetFinalizers(slices.DeleteFunc(cp.GetFinalizers(), func(f string) bool { return f == finalizer }))
	}
	return update(ctx, cp, metav1.UpdateOptions{})
}
