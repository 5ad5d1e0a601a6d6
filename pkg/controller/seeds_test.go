package controller

import (
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A ConfigMap named as the cluster's seeds but made by someone else carries no managed-by
// label, so the informer never holds it: the operator reads it from the apiserver once its
// create is refused, and refuses it in turn, leaving it as it was, rather than taking it for
// the cluster's seeds.
func TestSeedsConfigMapOfAnotherIsRefused(t *testing.T) {
	data := map[string]string{"seeds.json": `[{"host":{"address":"elsewhere","port":33145}}]`}
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: testName + "-seeds", Namespace: testNamespace}, Data: data}
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, kubeObjects: []runtime.Object{foreign}})
	bc := newBrokerCluster(0)
	bc.Spec.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	h.create(bc)

	var refused error
	for range 5 {
		if _, err := h.reconcile(); err != nil {
			refused = err
		}
	}
	if refused == nil || !strings.Contains(refused.Error(), "exists and is not controlled by BrokerCluster") {
		t.Fatalf("reconcile error %v, want the seeds ConfigMap refused", refused)
	}
	if n, events := h.countEvents("Warning ResourceExists", testName+"-seeds"); n == 0 {
		t.Errorf("no ResourceExists event naming the ConfigMap: %v", events)
	}
	cm, err := h.kube.CoreV1().ConfigMaps(testNamespace).Get(h.ctx, testName+"-seeds", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(cm.Data, data) || len(cm.OwnerReferences) != 0 {
		t.Errorf("another's ConfigMap changed: %+v", cm)
	}
}
