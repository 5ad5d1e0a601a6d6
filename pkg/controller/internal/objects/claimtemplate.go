package objects

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A StatefulSet's volume claim templates cannot change: kube-apiserver refuses any update of
// spec.volumeClaimTemplates (kubernetes v1.37.2 pkg/apis/apps/validation/validation.go,
// ValidateStatefulSetUpdate, ValidateImmutableField), and no feature gate lifts it. So a claim
// template that must grow is carried by making the StatefulSet again: deleted with
// propagationPolicy Orphan, its pods and claims stay, and the new StatefulSet adopts the pods
// by their labels; with updateStrategy OnDelete nothing restarts (pkg/controller/templategrowth.go).

// ClaimTemplateSize is the storage the StatefulSet's data volume claim template asks for; zero
// when it has none.
func ClaimTemplateSize(sts *appsv1.StatefulSet) resource.Quantity {
	for _, t := range sts.Spec.VolumeClaimTemplates {
		if t.Name == dataVolume {
			return t.Spec.Resources.Requests[corev1.ResourceStorage]
		}
	}
	return resource.Quantity{}
}

// SeedsOfPods is the founding seed count the pods were made with, read from the node config in
// the lowest-ordinal pod that has one: while the StatefulSet is being made again its annotation
// (AnnotationSeeds) is gone, and a template rendered with another count would make every pod
// look outdated. ok is false when no pod tells.
func SeedsOfPods(pods map[int]*corev1.Pod) (int32, bool) {
	ordinals := make([]int, 0, len(pods))
	for o := range pods {
		ordinals = append(ordinals, o)
	}
	slices.Sort(ordinals)
	for _, o := range ordinals {
		if n, ok := seedsOfPod(pods[o]); ok {
			return n, true
		}
	}
	return 0, false
}

// seedsOfPod counts the seed servers in the node config the pod's config container writes: 0
// for a pod that reads them from the seeds ConfigMap (seeds.go).
func seedsOfPod(pod *corev1.Pod) (int32, bool) {
	for _, v := range pod.Spec.Volumes {
		if v.Name == seedsVolume && v.ConfigMap != nil {
			return 0, true
		}
	}
	cfg, ok := podNodeConfig(pod)
	if !ok || len(cfg.Redpanda.SeedServers) == 0 {
		return 0, false
	}
	return int32(len(cfg.Redpanda.SeedServers)), true
}

// Seeds is the founding seed count of a cluster: the StatefulSet's record, else what its pods
// were made with, else (a new cluster) replicas; 0 when its seeds come from the seeds
// ConfigMap.
func Seeds(existing *appsv1.StatefulSet, pods map[int]*corev1.Pod, replicas int32) int32 {
	if existing == nil {
		if n, ok := SeedsOfPods(pods); ok {
			return n
		}
	}
	return FoundingSeeds(existing, replicas)
}
