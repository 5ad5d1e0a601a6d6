package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// syncInformers waits until every informer holds what the apiserver holds. BrokerCluster
// events held back by the holder are released first, unless the test is holding them.
func (h *harness) syncInformers() {
	h.t.Helper()
	h.syncKubeInformers()
	if h.holding {
		return
	}
	var want string
	if bc, err := h.bcTrack.Get(brokerClustersGVR, testNamespace, testName); err == nil {
		m, _ := meta.Accessor(bc)
		want = m.GetResourceVersion()
	}
	indexer := h.nc.brokerClusterInformer.GetIndexer()
	caughtUp := func() bool {
		obj, exists, _ := indexer.GetByKey(testKey)
		if want == "" {
			return !exists
		}
		return exists && obj.(metav1.Object).GetResourceVersion() == want
	}
	if h.holder == nil {
		h.await("the BrokerCluster informer", caughtUp)
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, 20*time.Second)
	defer cancel()
	for {
		// Count before releasing: whatever arrives later makes the count grow past it, and
		// whatever was held already is released and reaches the informer.
		pending := h.holder.Pending()
		h.holder.ReleaseAll()
		if caughtUp() {
			return
		}
		// The event is on its way into the holder, or out of it to the informer.
		held := make(chan struct{})
		waitCtx, stop := context.WithCancel(ctx)
		go func() {
			if h.holder.AwaitPending(waitCtx, pending+1) == nil {
				close(held)
			}
		}()
		select {
		case <-held:
		case <-h.informed:
		case <-ctx.Done():
			stop()
			h.t.Fatal("timed out releasing BrokerCluster events")
		}
		stop()
	}
}

// syncKubeInformers waits until the StatefulSet, Service, PDB, Pod, ServiceAccount and
// ConfigMap informers hold exactly what the apiserver holds (of ConfigMaps, those with the
// managed-by label).
func (h *harness) syncKubeInformers() {
	h.t.Helper()
	type source struct {
		informer cache.SharedIndexInformer
		list     func() ([]metav1.Object, error)
	}
	metaOf := func(list runtime.Object, err error) ([]metav1.Object, error) {
		if err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		out := make([]metav1.Object, 0, len(items))
		for _, it := range items {
			m, _ := meta.Accessor(it)
			out = append(out, m)
		}
		return out, err
	}
	lo := metav1.ListOptions{}
	sources := []source{
		{h.nc.statefulSetInformer, func() ([]metav1.Object, error) {
			return metaOf(h.kube.AppsV1().StatefulSets(testNamespace).List(h.ctx, lo))
		}},
		{h.nc.serviceInformer, func() ([]metav1.Object, error) {
			return metaOf(h.kube.CoreV1().Services(testNamespace).List(h.ctx, lo))
		}},
		{h.nc.pdbInformer, func() ([]metav1.Object, error) {
			return metaOf(h.kube.PolicyV1().PodDisruptionBudgets(testNamespace).List(h.ctx, lo))
		}},
		{h.nc.podInformer, func() ([]metav1.Object, error) { return metaOf(h.kube.CoreV1().Pods(testNamespace).List(h.ctx, lo)) }},
		{h.nc.serviceAccountInformer, func() ([]metav1.Object, error) {
			return metaOf(h.kube.CoreV1().ServiceAccounts(testNamespace).List(h.ctx, lo))
		}},
		{h.nc.configMapInformer, func() ([]metav1.Object, error) {
			managed := metav1.ListOptions{LabelSelector: objects.ManagedBySelector}
			return metaOf(h.kube.CoreV1().ConfigMaps(testNamespace).List(h.ctx, managed))
		}},
	}
	for _, s := range sources {
		want, err := s.list()
		if err != nil {
			h.t.Fatal(err)
		}
		h.await("informer "+fmt.Sprintf("%T", s.informer), func() bool {
			keys := s.informer.GetIndexer().ListKeys()
			if len(keys) != len(want) {
				return false
			}
			for _, w := range want {
				obj, ok, _ := s.informer.GetIndexer().GetByKey(w.GetNamespace() + "/" + w.GetName())
				if !ok || obj.(metav1.Object).GetResourceVersion() != w.GetResourceVersion() {
					return false
				}
			}
			return true
		})
	}
}
