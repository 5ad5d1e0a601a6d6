package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Tracer is told what each reconcile read and which irreversible calls it made, so that an
// experiment can record the operator's history and check it offline (test/history implements
// it). The parameters are plain types so that the controller imports nothing of the checker.
// Every method runs on the worker's goroutine and must be quick and safe for concurrent use.
type Tracer interface {
	// BeginReconcile is called by worker before a reconcile of resource namespace/name reads
	// anything; the reconcile runs with the context it returns.
	BeginReconcile(ctx context.Context, worker int, resource, namespace, name string) context.Context
	// Read is called after each read the reconcile decides on, with the object's UID and
	// resourceVersion (found false: not found) and the time the read started.
	Read(ctx context.Context, resource, namespace, name string, uid types.UID, resourceVersion string, found bool, start time.Time)
	// AdminCall is called after each irreversible call (decommission, recommission,
	// maintenance-on, delete-pod) with the broker's ordinal, the time it started and its error.
	AdminCall(ctx context.Context, call string, broker int32, start time.Time, err error)
}

// Names of the irreversible calls given to Tracer.AdminCall.
const (
	traceDecommission  = "decommission"
	traceRecommission  = "recommission"
	traceMaintenanceOn = "maintenance-on"
	traceDeletePod     = "delete-pod"
)

// traceStart returns the time a traced operation starts; zero when there is no tracer, so
// that an untraced controller does not even read the clock.
func (c *Controller) traceStart() time.Time {
	if c.cfg.Tracer == nil {
		return time.Time{}
	}
	return time.Now()
}

// traceBegin starts a traced reconcile of the queue key.
func (c *Controller) traceBegin(ctx context.Context, worker int, key string) context.Context {
	if c.cfg.Tracer == nil {
		return ctx
	}
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return ctx
	}
	return c.cfg.Tracer.BeginReconcile(ctx, worker, "brokerclusters", ns, name)
}

// traceRead reports a read that started at start, and calls ReadHook.
func (c *Controller) traceRead(ctx context.Context, resource, ns, name string, uid types.UID, rv string, found bool, start time.Time) {
	if c.cfg.ReadHook != nil {
		c.cfg.ReadHook(resource, ns, name, rv)
	}
	if c.cfg.Tracer != nil {
		c.cfg.Tracer.Read(ctx, resource, ns, name, uid, rv, found, start)
	}
}

// traceAdmin reports an irreversible call that started at start.
func (c *Controller) traceAdmin(ctx context.Context, call string, broker int32, start time.Time, err error) {
	if c.cfg.Tracer != nil {
		c.cfg.Tracer.AdminCall(ctx, call, broker, start, err)
	}
}

// LogTracer returns a Tracer that logs, at -v=4, each read and each irreversible call of a
// reconcile, with its worker and reconcile ID: the operator's history, for a test that runs it as
// a separate process (test/soak parses these lines). The lines are "Traced read" (worker,
// reconcile, resource, object, uid, resourceVersion, found, start, end) and "Traced admin call"
// (worker, reconcile, resource, object: the reconciled object, call, broker, start, end, err).
// start and end are read from TraceNow's clock, the system's monotonic clock, so that they
// never go backwards and compare across the processes of one machine even when the wall clock
// is stepped. A reconcile begun while the reconcile's logger is below -v=4 is not logged.
func LogTracer() Tracer { return &logTracer{} }

type logTracer struct {
	reconciles atomic.Uint64
}

type logTraceKey struct{}

// logTraceRef is what logTracer.BeginReconcile puts in the reconcile's context.
type logTraceRef struct {
	worker         int
	id             uint64
	resource       string
	namespace, obj string
}

// traceEpoch is a time.Time and the system's monotonic clock read together, once.
var traceEpoch = sync.OnceValues(func() (time.Time, int64) { return time.Now(), systemMonotonic() })

// traceClock converts t, with its monotonic reading, to TraceNow's clock.
func traceClock(t time.Time) int64 {
	epoch, mono := traceEpoch()
	return mono + int64(t.Sub(epoch))
}

// TraceNow returns the time on the clock of LogTracer's start and end: nanoseconds of the
// system's monotonic clock (CLOCK_MONOTONIC where there is one, else Unix nanoseconds), which
// every process of the machine reads alike. A reader of the traced lines compares its own
// readings with them.
func TraceNow() int64 { return traceClock(time.Now()) }

func (l *logTracer) BeginReconcile(ctx context.Context, worker int, resource, namespace, name string) context.Context {
	if !klog.FromContext(ctx).V(4).Enabled() {
		return ctx
	}
	ref := &logTraceRef{worker: worker, id: l.reconciles.Add(1), resource: resource, namespace: namespace, obj: name}
	return context.WithValue(ctx, logTraceKey{}, ref)
}

func (l *logTracer) Read(ctx context.Context, resource, namespace, name string, uid types.UID, resourceVersion string, found bool, start time.Time) {
	ref, ok := ctx.Value(logTraceKey{}).(*logTraceRef)
	if !ok {
		return
	}
	klog.FromContext(ctx).V(4).Info("Traced read", "worker", ref.worker, "reconcile", ref.id, "resource", resource,
		"object", klog.KRef(namespace, name), "uid", string(uid), "resourceVersion", resourceVersion, "found", found,
		"start", traceClock(start), "end", traceClock(time.Now()))
}

func (l *logTracer) AdminCall(ctx context.Context, call string, broker int32, start time.Time, err error) {
	ref, ok := ctx.Value(logTraceKey{}).(*logTraceRef)
	if !ok {
		return
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	// err last: a multi-line error is written over several lines, after every other field.
	klog.FromContext(ctx).V(4).Info("Traced admin call", "worker", ref.worker, "reconcile", ref.id, "resource", ref.resource,
		"object", klog.KRef(ref.namespace, ref.obj), "call", call, "broker", broker,
		"start", traceClock(start), "end", traceClock(time.Now()), "err", msg)
}
