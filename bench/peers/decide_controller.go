package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// waitThreshold: a read through a strategy that waits for its cache counts as having waited
// when it takes this long; a read from memory takes microseconds.
const waitThreshold = time.Millisecond

// decisionController is a sample-controller-style controller over one decider: informer
// events and its own requeues feed a rate-limited workqueue that N workers drain. Each sync
// reads the object, acts on the step it sees (a counted side effect standing for an admin
// call, then one write recording the next step), and asks to run again while steps remain.
type decisionController struct {
	d           decider
	waitsInRead bool
	steps       int
	queue       workqueue.TypedRateLimitingInterface[string]
	track       *tracker
}

func (c *decisionController) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *decisionController) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	more, err := c.sync(ctx, key)
	if err != nil {
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	if more {
		c.queue.Add(key)
	}
	return true
}

// sync returns whether the object has steps left.
func (c *decisionController) sync(ctx context.Context, key string) (bool, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return false, err
	}
	owner := types.NamespacedName{Namespace: ns, Name: name}
	if err := c.d.admit(owner); err != nil {
		c.track.turnedAway()
		return false, err
	}
	start := time.Now()
	obj, err := c.d.read(ctx, owner)
	if c.waitsInRead && time.Since(start) >= waitThreshold {
		c.track.waited()
	}
	if err != nil {
		return false, err
	}
	if obj == nil {
		return false, fmt.Errorf("%s: no record", key)
	}
	step, err := stepOf(obj)
	if err != nil {
		return false, fmt.Errorf("%s: %w", key, err)
	}
	if step >= c.steps {
		c.track.idle()
		return false, nil
	}
	c.track.act(key, step)
	if err := c.d.write(ctx, owner, stepPatch(step+1)); err != nil {
		return false, err
	}
	c.track.wrote(key, step+1)
	return step+1 < c.steps, nil
}

// tracker counts what the controller did until every object has reached the last step.
type tracker struct {
	mu        sync.Mutex
	steps     int
	start     time.Time
	acted     map[string][]int
	wroteAt   map[string][]time.Time
	remaining int
	done      chan struct{}
	finished  time.Duration

	latencies                            []time.Duration
	actions, wrong, turned, waits, idles int
}

func newTracker(keys []string, steps int) *tracker {
	t := &tracker{steps: steps, acted: map[string][]int{}, wroteAt: map[string][]time.Time{}, remaining: len(keys), done: make(chan struct{})}
	for _, k := range keys {
		t.acted[k] = make([]int, steps)
		t.wroteAt[k] = make([]time.Time, steps+1)
	}
	return t
}

func (t *tracker) begin() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.start = time.Now()
}

func (t *tracker) over() bool { return t.remaining == 0 }

// act records the side effect of step; a step acted on twice is a wrong decision. The first
// action on a step measures the time since the write that recorded it.
func (t *tracker) act(key string, step int) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.over() {
		return
	}
	t.actions++
	t.acted[key][step]++
	switch {
	case t.acted[key][step] > 1:
		t.wrong++
	case step > 0:
		t.latencies = append(t.latencies, now.Sub(t.wroteAt[key][step]))
	}
}

func (t *tracker) wrote(key string, step int) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.over() || !t.wroteAt[key][step].IsZero() {
		return
	}
	t.wroteAt[key][step] = now
	if step == t.steps {
		t.remaining--
		if t.over() {
			t.finished = now.Sub(t.start)
			close(t.done)
		}
	}
}

func (t *tracker) count(n *int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.over() {
		*n++
	}
}

func (t *tracker) turnedAway() { t.count(&t.turned) }
func (t *tracker) waited()     { t.count(&t.waits) }
func (t *tracker) idle()       { t.count(&t.idles) }

// observedLimiter is the default controller rate limiter, noting the longest delay it handed out.
type observedLimiter struct {
	workqueue.TypedRateLimiter[string]
	mu      sync.Mutex
	longest time.Duration
}

func newObservedLimiter() *observedLimiter {
	return &observedLimiter{TypedRateLimiter: workqueue.DefaultTypedControllerRateLimiter[string]()}
}

func (l *observedLimiter) When(key string) time.Duration {
	d := l.TypedRateLimiter.When(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.longest = max(l.longest, d)
	return d
}

func (l *observedLimiter) max() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.longest
}
