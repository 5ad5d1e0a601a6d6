package writeback

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// NewMetadata is NewObserving for the informer of gvr in a metadatainformer factory. The
// informer holds *metav1.PartialObjectMetadata; read through metadatalister.New(overlay, gvr)
// and write through WrapMetadata. The metadata API only patches and deletes: a controller that
// creates or updates with a typed or dynamic client wraps that client with this overlay too,
// and each result is recorded as its metadata. The resource label is gvr's group-resource.
// As for NewDynamic, call it before the factory's Start, or call Start again after it.
func NewMetadata(factory metadatainformer.SharedInformerFactory, gvr schema.GroupVersionResource, opts Options) (*Overlay, cache.InformerSynced, error) {
	if factory == nil {
		return nil, nil, fmt.Errorf("writeback: NewMetadata(%s) needs a factory, got nil", gvr)
	}
	return newObservingAs(gvr.GroupResource().String(), factory.ForResource(gvr).Informer(), opts, asPartialObjectMetadata)
}

// MetadataClient is a metadata.ResourceInterface that records every successful Patch and
// Delete into an Overlay over a metadata informer. Reads go straight to the server.
// DeleteCollection is not captured.
type MetadataClient struct {
	metadata.ResourceInterface
	namespace string
	overlay   *Overlay
}

var _ metadata.ResourceInterface = &MetadataClient{}

// WrapMetadata returns a MetadataClient that writes through inner and records the results in
// o. namespace is the one inner was made for ("" for a cluster-scoped resource).
func WrapMetadata(inner metadata.ResourceInterface, namespace string, o *Overlay) *MetadataClient {
	if inner == nil || o == nil {
		panic("writeback.WrapMetadata: inner client and overlay must not be nil")
	}
	return &MetadataClient{ResourceInterface: inner, namespace: namespace, overlay: o}
}

// Patch patches the object, or a subresource that answers with the object, and records the
// result. A dry run is not recorded.
func (c *MetadataClient) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*metav1.PartialObjectMetadata, error) {
	result, err := c.ResourceInterface.Patch(ctx, name, pt, data, opts, subresources...)
	if err == nil && len(opts.DryRun) == 0 && answersWithObject(subresources) {
		c.overlay.Record(result)
	}
	return result, err
}

// Delete deletes the object and records a tombstone, as Client.Delete does.
func (c *MetadataClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions, subresources ...string) error {
	if err := c.ResourceInterface.Delete(ctx, name, opts, subresources...); err != nil {
		return err
	}
	recordDelete(c.overlay, c.namespace, name, opts, subresources)
	return nil
}
