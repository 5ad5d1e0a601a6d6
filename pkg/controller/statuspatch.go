package controller

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// patchStatusFields writes fields into bc's status with one merge patch of the status
// subresource (a merge patch keeps what it does not name), through the write-back client so
// that the next read sees it, and returns the BrokerCluster the apiserver answered. what names
// the fields in an error.
func patchStatusFields(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, what string, fields map[string]any) (*v1alpha1.BrokerCluster, error) {
	data, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", what, err)
	}
	updated, err := nc.brokerClusters(bc.Namespace).Patch(ctx, bc.Name, types.MergePatchType, data, metav1.PatchOptions{}, "status")
	if err != nil {
		return nil, fmt.Errorf("patch %s of %s: %w", what, clusterKey(bc), err)
	}
	return updated, nil
}
