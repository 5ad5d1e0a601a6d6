package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/framework"
)

const examplePath = "deploy/examples/brokercluster.yaml"

var metav1CreateOptions = metav1.CreateOptions{FieldManager: "localrun"}

// exampleCluster reads the example BrokerCluster and places its Pods on the fake Nodes, which
// needs a toleration; kwok holds each Pod back from Ready for readyDelay, as a starting broker
// would be.
func exampleCluster(root, namespace string, readyDelay time.Duration) (*v1alpha1.BrokerCluster, error) {
	data, err := os.ReadFile(filepath.Join(root, examplePath))
	if err != nil {
		return nil, err
	}
	bc := &v1alpha1.BrokerCluster{}
	if err := yaml.UnmarshalStrict(data, bc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", examplePath, err)
	}
	bc.Namespace = namespace
	bc.Spec.Tolerations = append(bc.Spec.Tolerations, framework.FakeNodeTolerations()...)
	if bc.Spec.NodeSelector == nil {
		bc.Spec.NodeSelector = map[string]string{}
	}
	for k, v := range framework.FakeNodeSelector() {
		bc.Spec.NodeSelector[k] = v
	}
	meta := metav1.ObjectMeta{Annotations: bc.Spec.PodAnnotations}
	framework.DelayReadiness(&meta, readyDelay)
	bc.Spec.PodAnnotations = meta.Annotations
	return bc, nil
}

// examplePool is the pool make run's simulator serves for the example: a move to it can be tried.
const examplePool = "blue"

// movePatch is the merge patch that moves every broker of bc to pool blue: as many brokers,
// the same storage and resources, on the same fake Nodes.
func movePatch(bc *v1alpha1.BrokerCluster) (string, error) {
	pool := v1alpha1.BrokerPool{
		Name: examplePool, Replicas: bc.Spec.Replicas, Storage: v1alpha1.StorageSpec{Size: bc.Spec.Storage.Size},
		Resources: bc.Spec.Resources, Tolerations: bc.Spec.Tolerations, NodeSelector: bc.Spec.NodeSelector,
		PodAnnotations: bc.Spec.PodAnnotations,
	}
	data, err := json.Marshal(map[string]any{"spec": map[string]any{"replicas": 0, "pools": []v1alpha1.BrokerPool{pool}}})
	return string(data), err
}
