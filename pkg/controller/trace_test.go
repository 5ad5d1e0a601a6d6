package controller

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/trace"
)

// traceLog is a Tracer that writes down what it is told, one line per call.
type traceLog struct {
	mu    sync.Mutex
	lines []string
}

type traceReconcileKey struct{}

func (l *traceLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *traceLog) BeginReconcile(ctx context.Context, worker int, resource, namespace, name string) context.Context {
	l.add("begin worker=%d %s %s/%s", worker, resource, namespace, name)
	return context.WithValue(ctx, traceReconcileKey{}, worker)
}

func (l *traceLog) Read(ctx context.Context, o trace.Object, start time.Time) {
	worker, _ := ctx.Value(traceReconcileKey{}).(int)
	if start.IsZero() || time.Since(start) < 0 || o.Found != (o.ResourceVersion != "") || o.Found != (o.UID != "") {
		l.add("bad read %s start=%v uid=%q rv=%q found=%v", o.Resource, start, o.UID, o.ResourceVersion, o.Found)
		return
	}
	l.add("read worker=%d %s %s/%s found=%v", worker, o.Resource, o.Namespace, o.Name, o.Found)
}

func (l *traceLog) AdminCall(ctx context.Context, call string, broker int32, start time.Time, err error) {
	worker, _ := ctx.Value(traceReconcileKey{}).(int)
	l.add("admin worker=%d %s broker=%d err=%v", worker, call, broker, err)
}

func TestTracerSeesReconcileReadsAndAdminCalls(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	tracer := &traceLog{}
	h.c.cfg.Tracer = tracer
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	for h.c.queue.Len() > 0 { // drop what informer events queued; the test queues its own
		key, _ := h.c.queue.Get()
		h.c.queue.Forget(key)
		h.c.queue.Done(key)
	}
	h.c.queue.Add(testKey)
	if !h.c.processNextWorkItem(h.ctx, 7) {
		t.Fatal("queue shut down")
	}
	want := []string{
		"begin worker=7 brokerclusters " + testKey,
		"read worker=7 brokerclusters " + testKey + " found=true",
		"read worker=7 statefulsets " + testKey + " found=true",
		fmt.Sprintf("admin worker=7 decommission broker=%d err=<nil>", ids[2]),
	}
	if !slices.Equal(tracer.lines, want) {
		t.Errorf("traced\n%q\nwant\n%q", tracer.lines, want)
	}
}
