package controller

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// ReadStrategy says where a reconcile reads the objects its decisions rest on. It implements
// flag.Value (and pflag.Value), so it can be a command-line flag directly.
type ReadStrategy int

const (
	// ReadWriteback reads through the write-back overlays: the informer's copy or the
	// controller's own newer write, whichever is newer. The default.
	ReadWriteback ReadStrategy = iota
	// ReadCache reads the plain informer indexers, which may lag behind the controller's own
	// writes: the seed's bug, kept for experiments.
	ReadCache
	// ReadUncached GETs the BrokerCluster and the StatefulSet from the apiserver at the start of
	// each reconcile (the seed's option A); Pods, Services and PodDisruptionBudgets come from
	// the plain informer indexers.
	ReadUncached
)

var readStrategyNames = []string{"writeback", "cache", "uncached"}

func (s ReadStrategy) valid() bool { return s >= 0 && int(s) < len(readStrategyNames) }

// String returns the flag spelling: writeback, cache or uncached.
func (s ReadStrategy) String() string {
	if !s.valid() {
		return fmt.Sprintf("ReadStrategy(%d)", int(s))
	}
	return readStrategyNames[s]
}

// ParseReadStrategy parses writeback, cache or uncached (case-insensitive).
func ParseReadStrategy(text string) (ReadStrategy, error) {
	for i, name := range readStrategyNames {
		if strings.EqualFold(strings.TrimSpace(text), name) {
			return ReadStrategy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown read strategy %q: want one of %s", text, strings.Join(readStrategyNames, ", "))
}

// Set parses text into s, for flag.Value.
func (s *ReadStrategy) Set(text string) error {
	v, err := ParseReadStrategy(text)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Type names the flag's type, for pflag.Value.
func (s *ReadStrategy) Type() string { return "readStrategy" }

// The read path of a reconcile. Writes always go through the capturing clients; only what is
// read changes with the strategy.

func (nc *namespaceCache) readBrokerCluster(ctx context.Context, ns, name string) (*v1alpha1.BrokerCluster, error) {
	switch nc.strategy {
	case ReadUncached:
		return nc.brokerClient.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
	case ReadCache:
		return nc.raw.brokerClusters.BrokerClusters(ns).Get(name)
	default:
		return nc.overlaid.brokerClusters.BrokerClusters(ns).Get(name)
	}
}

func (nc *namespaceCache) readStatefulSet(ctx context.Context, ns, name string) (*appsv1.StatefulSet, error) {
	switch nc.strategy {
	case ReadUncached:
		return nc.kubeClient.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
	case ReadCache:
		return nc.raw.statefulSets.StatefulSets(ns).Get(name)
	default:
		return nc.overlaid.statefulSets.StatefulSets(ns).Get(name)
	}
}

// listers are the cached reads of Pods, Services and PodDisruptionBudgets: overlaid for
// writeback, the plain informers' otherwise.
func (nc *namespaceCache) listers() listerSet {
	if nc.strategy == ReadWriteback {
		return nc.overlaid
	}
	return nc.raw
}
