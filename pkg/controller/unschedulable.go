package controller

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// unschedulableRecheck is when to look again at the pods below current that the scheduler has
// found no node for and that do not count as stuck yet (brokerpod.UntilStuck); 0 when there are
// none. Once such a pod's grace ends nothing about it changes (the scheduler does not write the
// condition again), so without this the cluster would not say it waits until some other event.
func unschedulableRecheck(pods map[int]*corev1.Pod, current int32, now time.Time) time.Duration {
	var recheck time.Duration
	for ordinal, pod := range pods {
		if ordinal < int(current) {
			recheck = sooner(recheck, brokerpod.UntilStuck(pod, now))
		}
	}
	return recheck
}
