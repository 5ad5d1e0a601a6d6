package writeback

import (
	"context"
	"path"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// DynamicClient is a dynamic.ResourceInterface that records every successful write into an
// Overlay, as Client does for a typed client. Reads (Get, List, Watch) go straight to the
// server. DeleteCollection is not captured.
type DynamicClient struct {
	dynamic.ResourceInterface
	namespace string
	overlay   *Overlay
}

var _ dynamic.ResourceInterface = &DynamicClient{}

// WrapDynamic returns a DynamicClient that writes through inner and records the results in o.
// namespace is the one inner was made for (dyn.Resource(gvr).Namespace(ns)); "" for a
// cluster-scoped resource.
func WrapDynamic(inner dynamic.ResourceInterface, namespace string, o *Overlay) *DynamicClient {
	if inner == nil || o == nil {
		panic("writeback.WrapDynamic: inner client and overlay must not be nil")
	}
	return &DynamicClient{ResourceInterface: inner, namespace: namespace, overlay: o}
}

// Create creates obj and records the result. A create of a subresource (pods/eviction,
// serviceaccounts/token) answers with another kind of object and is not recorded, nor is a dry
// run, here or in any other method.
func (c *DynamicClient) Create(ctx context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions, subresources ...string) (*unstructured.Unstructured, error) {
	result, err := c.ResourceInterface.Create(ctx, obj, opts, subresources...)
	return c.record(result, err, opts.DryRun, subresources)
}

// Update updates obj, or a subresource that answers with the object, and records the result.
func (c *DynamicClient) Update(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions, subresources ...string) (*unstructured.Unstructured, error) {
	result, err := c.ResourceInterface.Update(ctx, obj, opts, subresources...)
	return c.record(result, err, opts.DryRun, subresources)
}

// UpdateStatus updates obj's status and records the result.
func (c *DynamicClient) UpdateStatus(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	result, err := c.ResourceInterface.UpdateStatus(ctx, obj, opts)
	return c.record(result, err, opts.DryRun, nil)
}

// Patch patches the object, or a subresource that answers with the object, and records the
// result.
func (c *DynamicClient) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*unstructured.Unstructured, error) {
	result, err := c.ResourceInterface.Patch(ctx, name, pt, data, opts, subresources...)
	return c.record(result, err, opts.DryRun, subresources)
}

// Apply applies obj (server-side apply) and records the result.
func (c *DynamicClient) Apply(ctx context.Context, name string, obj *unstructured.Unstructured, opts metav1.ApplyOptions, subresources ...string) (*unstructured.Unstructured, error) {
	result, err := c.ResourceInterface.Apply(ctx, name, obj, opts, subresources...)
	return c.record(result, err, opts.DryRun, subresources)
}

// ApplyStatus applies obj's status and records the result.
func (c *DynamicClient) ApplyStatus(ctx context.Context, name string, obj *unstructured.Unstructured, opts metav1.ApplyOptions) (*unstructured.Unstructured, error) {
	result, err := c.ResourceInterface.ApplyStatus(ctx, name, obj, opts)
	return c.record(result, err, opts.DryRun, nil)
}

// Delete deletes the object and records a tombstone, as Client.Delete does.
func (c *DynamicClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions, subresources ...string) error {
	if err := c.ResourceInterface.Delete(ctx, name, opts, subresources...); err != nil {
		return err
	}
	recordDelete(c.overlay, c.namespace, name, opts, subresources)
	return nil
}

func (c *DynamicClient) record(result *unstructured.Unstructured, err error, dryRun, subresources []string) (*unstructured.Unstructured, error) {
	if err == nil && len(dryRun) == 0 && answersWithObject(subresources) {
		c.overlay.Record(result)
	}
	return result, err
}

// answersWithObject tells whether a write to these subresources answers with the object
// itself (objectSubresources: the object, status, resize...); scale, eviction, token and the
// like answer with another kind. The client joins the arguments into one path.
func answersWithObject(subresources []string) bool {
	return objectSubresources[path.Join(subresources...)]
}

// recordDelete stores the tombstone of a successful, real (not dry-run) delete of the object.
func recordDelete(o *Overlay, namespace, name string, opts metav1.DeleteOptions, subresources []string) {
	if len(opts.DryRun) > 0 || !answersWithObject(subresources) {
		return
	}
	var uid types.UID
	if opts.Preconditions != nil && opts.Preconditions.UID != nil {
		uid = *opts.Preconditions.UID
	}
	o.RecordDelete(namespace, name, uid)
}
