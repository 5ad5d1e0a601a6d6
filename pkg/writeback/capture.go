package writeback

import (
	"context"
	"fmt"
	"path"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// Object is what generated typed clients read and write: a pointer to an API type.
type Object interface {
	runtime.Object
	metav1.Object
}

// Interface holds the methods every generated typed client has, for object type T, list type L
// and apply-configuration type A. A generated <Type>Interface value (real or fake clientset)
// satisfies it.
type Interface[T Object, L runtime.Object, A any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
	Apply(ctx context.Context, obj A, opts metav1.ApplyOptions) (T, error)
}

// statusWriter is the part of a typed client that exists only for types with a status
// subresource.
type statusWriter[T Object, A any] interface {
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	ApplyStatus(ctx context.Context, obj A, opts metav1.ApplyOptions) (T, error)
}

// Client is a typed client that records every successful write into an Overlay. Its method
// set is that of a generated <Type>Interface with an empty expansion, so it can be returned
// wherever that interface is expected. Reads (Get, List, Watch) go straight to the server.
type Client[T Object, L runtime.Object, A any] struct {
	Interface[T, L, A]
	status    statusWriter[T, A]
	namespace string
	overlay   *Overlay
}

// Wrap returns a Client that writes through inner and records the results in o. namespace is
// the namespace inner was made for ("" for cluster-scoped resources): a Delete returns no
// object, and the key of its tombstone needs it.
//
// UpdateStatus and ApplyStatus are forwarded when inner has them (every generated client does;
// the interfaces of types without status hide them) and fail otherwise.
func Wrap[T Object, L runtime.Object, A any](inner Interface[T, L, A], namespace string, o *Overlay) *Client[T, L, A] {
	if inner == nil || o == nil {
		panic("writeback.Wrap: inner client and overlay must not be nil")
	}
	c := &Client[T, L, A]{Interface: inner, namespace: namespace, overlay: o}
	c.status, _ = inner.(statusWriter[T, A])
	return c
}

// Create creates obj and records the result.
func (c *Client[T, L, A]) Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error) {
	return c.record(opts.DryRun)(c.Interface.Create(ctx, obj, opts))
}

// Update updates obj and records the result.
func (c *Client[T, L, A]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	return c.record(opts.DryRun)(c.Interface.Update(ctx, obj, opts))
}

// UpdateStatus updates obj's status and records the result.
func (c *Client[T, L, A]) UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	if c.status == nil {
		var zero T
		return zero, fmt.Errorf("writeback: %s has no status subresource client", c.overlay.resource)
	}
	return c.record(opts.DryRun)(c.status.UpdateStatus(ctx, obj, opts))
}

// Patch patches the object or one of its subresources, and records the result when the
// answer is the object itself: see objectSubresources. Any other subresource (scale answers
// with an autoscaling/v1 Scale) goes through unrecorded.
func (c *Client[T, L, A]) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error) {
	result, err := c.Interface.Patch(ctx, name, pt, data, opts, subresources...)
	// The client joins the arguments into one path, dropping empty ones.
	if objectSubresources[path.Join(subresources...)] {
		return c.record(opts.DryRun)(result, err)
	}
	return result, err
}

// objectSubresources are the subresources whose write answers with the object itself; ""
// is the object. Those of core Kubernetes: pods/resize and pods/ephemeralcontainers answer
// with the Pod, certificatesigningrequests/approval with the request. A custom resource has
// only status and scale.
var objectSubresources = map[string]bool{
	"":                    true,
	"status":              true,
	"resize":              true,
	"ephemeralcontainers": true,
	"approval":            true,
}

// Apply applies the configuration (server-side apply) and records the result.
func (c *Client[T, L, A]) Apply(ctx context.Context, obj A, opts metav1.ApplyOptions) (T, error) {
	return c.record(opts.DryRun)(c.Interface.Apply(ctx, obj, opts))
}

// ApplyStatus applies the status configuration and records the result.
func (c *Client[T, L, A]) ApplyStatus(ctx context.Context, obj A, opts metav1.ApplyOptions) (T, error) {
	if c.status == nil {
		var zero T
		return zero, fmt.Errorf("writeback: %s has no status subresource client", c.overlay.resource)
	}
	return c.record(opts.DryRun)(c.status.ApplyStatus(ctx, obj, opts))
}

// Delete deletes the object and records a tombstone. The tombstone's UID is the precondition's
// when one is set, and otherwise that of the copy reads serve.
func (c *Client[T, L, A]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := c.Interface.Delete(ctx, name, opts); err != nil || len(opts.DryRun) > 0 {
		return err
	}
	var uid types.UID
	if opts.Preconditions != nil && opts.Preconditions.UID != nil {
		uid = *opts.Preconditions.UID
	}
	c.overlay.RecordDelete(c.namespace, name, uid)
	return nil
}

// record stores a successful write's result. A dry run (any DryRun value; the server accepts
// only "All") changed nothing on the server, so there is nothing to read back.
func (c *Client[T, L, A]) record(dryRun []string) func(T, error) (T, error) {
	return func(result T, err error) (T, error) {
		if err == nil && len(dryRun) == 0 {
			c.overlay.Record(result)
		}
		return result, err
	}
}
