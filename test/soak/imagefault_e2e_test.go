//go:build e2e

package soak

import (
	"context"
	"fmt"
	"time"

	"github.com/broker-operator/broker-operator/test/framework"
)

// badRollout is a bad-image-rollout fault handed to the next driver that is about to take a
// step: its driver rolls out an image that cannot be pulled, waits the fault window once a pod
// of it cannot start, then rolls out the fix, and says what happened on done.
type badRollout struct {
	// minBrokers is the fewest brokers the cluster may have, and reason what the bad image's
	// pods wait in: every other fault (the first included) an image that cannot be pulled
	// (ImagePullBackOff) on a cluster of at least 3, so that a second broker is there to be
	// restarted too early; the others an image whose broker exits as it starts
	// (CrashLoopBackOff) on any cluster, a single broker included (whose only broker cannot
	// answer while its pod cannot start).
	minBrokers int32
	reason     string
	done       chan string
}

// rolloutImage is the image of a cluster's nth rollout: a Redpanda version (25.1, so the
// brokers answer the restart probes; the bring-up image has none and answers 404) the
// simulator reads from the tag.
func rolloutImage(n int) string { return fmt.Sprintf("registry.invalid/broker:v25.1.%d", n) }

// injectBadImageRollout hands a bad rollout to the next cluster's driver (up to two fault
// intervals) and waits for it to have rolled out the fix.
func injectBadImageRollout(ctx context.Context, h *rig) (string, error) {
	trap := badRollout{minBrokers: 1, reason: crashBackOff, done: make(chan string, 1)}
	if h.badRollouts.Add(1)%2 == 1 {
		trap.minBrokers, trap.reason = 3, pullBackOff
	}
	h.trapMin.Store(trap.minBrokers) // drivers with fewer brokers leave it to another
	select {
	case h.imageTraps <- trap:
	case <-time.After(2 * h.s.faultEvery):
		return "no driver took a step within two fault intervals; no bad image rolled out", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case note := <-trap.done:
		return note, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// rollOutBadImage is a driver's side of the bad-image-rollout fault: the rollout of an image
// that cannot be pulled (the pull failer keeps its pods in ImagePullBackOff, and kwok holds
// back), then, once a pod of it cannot start (or the step's time is up) and the fault window
// has passed, the fix: the rollout of a good image, awaited as any rollout.
func (h *rig) rollOutBadImage(ctx context.Context, name string, replicas int32, n int, run *clusterRun, trap badRollout) bool {
	bad := rolloutImage(n) + "-unpullable"
	if trap.reason == crashBackOff {
		bad = rolloutImage(n) + "-crashloop"
	}
	h.pulls.failStarts(bad, trap.reason)
	since := len(h.pulls.cannotStart(name))
	patch := fmt.Appendf(nil, `{"spec":{"image":%q,"podAnnotations":{%q:"1h"}}}`, bad, framework.ReadyDelayAnnotation)
	if err := retry(ctx, h.s.stepTimeout, h.patchCluster(name, patch)); err != nil {
		trap.done <- fmt.Sprintf("%s: the bad image was not set: %v", name, err)
		run.stuck = fmt.Sprintf("rollout %d (bad image): %v", n, err)
		return false
	}
	note := fmt.Sprintf("%s: %s rolled out, no pod of it got stuck within %s", name, bad, h.s.stepTimeout)
	if o, ok := h.pulls.awaitStuck(ctx, name, since, h.s.stepTimeout); ok {
		note = fmt.Sprintf("%s: pod %s-%d (node %d) in %s on %s", name, name, o.Ordinal, o.NodeID, trap.reason, bad)
		select {
		case <-time.After(h.s.faultWindow):
		case <-ctx.Done():
		}
	}
	fix := fmt.Appendf(nil, `{"spec":{"image":%q,"podAnnotations":{%q:null}}}`, rolloutImage(n), framework.ReadyDelayAnnotation)
	ok := h.rollOutWith(ctx, name, replicas, n, run, fix)
	if ok {
		note += fmt.Sprintf(", then the fix %s converged in %s", rolloutImage(n), run.steps[len(run.steps)-1].End.Sub(run.steps[len(run.steps)-1].Start).Round(time.Millisecond))
	}
	trap.done <- note
	return ok
}
