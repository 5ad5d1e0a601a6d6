// Package trace tells a Tracer what each reconcile read and which irreversible calls it made,
// so that an experiment can record the operator's history and check it offline (test/history
// implements Tracer). LogTracer writes the same as log lines, for a test that runs the operator
// as a separate process.
package trace

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
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
	// Read is called after each read the reconcile decides on, with the object as read (Found
	// false: not found) and the time the read started.
	Read(ctx context.Context, o Object, start time.Time)
	// AdminCall is called after each irreversible call (decommission, recommission,
	// maintenance-on, delete-pod) and each maintenance-off, which ends the span a broker is
	// unavailable by the operator's hand, with the broker, the time it started and its error.
	AdminCall(ctx context.Context, call string, broker int32, start time.Time, err error)
}

// Names of the irreversible calls given to Tracer.AdminCall.
const (
	Decommission  = "decommission"
	Recommission  = "recommission"
	MaintenanceOn = "maintenance-on"
	// MaintenanceOff ends the span a broker is unavailable by the operator's hand.
	MaintenanceOff = "maintenance-off"
	DeletePod      = "delete-pod"
)

// Hooks are a controller's Tracer and ReadHook (controller.Config), either of which may be nil.
type Hooks struct {
	Tracer Tracer
	// ReadHook, when set, is called with the resource, namespace, name and resourceVersion of
	// each read a reconcile decides on.
	ReadHook func(resource, namespace, name, resourceVersion string)
}

// Start returns the time a traced operation starts; zero when there is no tracer, so that an
// untraced controller does not even read the clock.
func (h Hooks) Start() time.Time {
	if h.Tracer == nil {
		return time.Time{}
	}
	return time.Now()
}

// Begin starts a traced reconcile of the BrokerCluster namespace/name by worker.
func (h Hooks) Begin(ctx context.Context, worker int, namespace, name string) context.Context {
	if h.Tracer == nil {
		return ctx
	}
	return h.Tracer.BeginReconcile(ctx, worker, "brokerclusters", namespace, name)
}

// Object is one object as a reconcile read it: found false when it was not there.
type Object struct {
	Resource, Namespace, Name string
	UID                       types.UID
	ResourceVersion           string
	Found                     bool
}

// Read reports a read that started at start, and calls the ReadHook.
func (h Hooks) Read(ctx context.Context, o Object, start time.Time) {
	if h.ReadHook != nil {
		h.ReadHook(o.Resource, o.Namespace, o.Name, o.ResourceVersion)
	}
	if h.Tracer != nil {
		h.Tracer.Read(ctx, o, start)
	}
}

// Call reports an irreversible call on broker that started at start.
func (h Hooks) Call(ctx context.Context, call string, broker int32, start time.Time, err error) {
	if h.Tracer != nil {
		h.Tracer.AdminCall(ctx, call, broker, start, err)
	}
}

// Log returns a Tracer that logs, at -v=4, each read and each irreversible call of a
// reconcile, with its worker and reconcile ID: the operator's history, for a test that runs it as
// a separate process (test/soak parses these lines). The lines are "Traced read" (worker,
// reconcile, resource, object, uid, resourceVersion, found, start, end) and "Traced admin call"
// (worker, reconcile, resource, object: the reconciled object, call, broker, start, end, err).
// start and end are read from Now's clock, the system's monotonic clock, so that they
// never go backwards and compare across the processes of one machine even when the wall clock
// is stepped. A reconcile begun while the reconcile's logger is below -v=4 is not logged.
func Log() Tracer { return &logTracer{} }

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

// traceClock converts t, with its monotonic reading, to Now's clock.
func traceClock(t time.Time) int64 {
	epoch, mono := traceEpoch()
	return mono + int64(t.Sub(epoch))
}

// Now returns the time on the clock of Log's start and end: nanoseconds of the
// system's monotonic clock (CLOCK_MONOTONIC where there is one, else Unix nanoseconds), which
// every process of the machine reads alike. A reader of the traced lines compares its own
// readings with them.
func Now() int64 { return traceClock(time.Now()) }

func (l *logTracer) BeginReconcile(ctx context.Context, worker int, resource, namespace, name string) context.Context {
	if !klog.FromContext(ctx).V(4).Enabled() {
		return ctx
	}
	ref := &logTraceRef{worker: worker, id: l.reconciles.Add(1), resource: resource, namespace: namespace, obj: name}
	return context.WithValue(ctx, logTraceKey{}, ref)
}

func (l *logTracer) Read(ctx context.Context, o Object, start time.Time) {
	ref, ok := ctx.Value(logTraceKey{}).(*logTraceRef)
	if !ok {
		return
	}
	klog.FromContext(ctx).V(4).Info("Traced read", "worker", ref.worker, "reconcile", ref.id, "resource", o.Resource,
		"object", klog.KRef(o.Namespace, o.Name), "uid", string(o.UID), "resourceVersion", o.ResourceVersion, "found", o.Found,
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
