package history

import (
	"context"
	"strconv"
	"time"

	"github.com/broker-operator/broker-operator/pkg/controller/trace"

	"k8s.io/apimachinery/pkg/types"
)

// Logs that belong to no worker.
const (
	// WorkerNone records what no reconcile made: a write whose context carries none.
	WorkerNone = -1
	// WorkerInformers records deletions delivered by informers.
	WorkerInformers = -2
	// WorkerElection records leadership.
	WorkerElection = -3
)

// ReconcileHooks is what a controller calls so that a Recorder can attribute its reads and
// admin calls to a worker and a reconcile. *Recorder implements it, and so implements the
// controller's trace.Tracer (pkg/controller/trace, a leaf package of plain types): the
// controller imports nothing of this package.
type ReconcileHooks interface {
	// BeginReconcile is called by a worker before its reconcile of the object resource
	// namespace/name reads anything; the reconcile runs with the context it returns.
	BeginReconcile(ctx context.Context, worker int, resource, namespace, name string) context.Context
	// Read is called after each lister read the reconcile decides on, with the object as read
	// (Found false: not found) and the time the read started.
	Read(ctx context.Context, o trace.Object, start time.Time)
	// AdminCall is called after each irreversible admin call (decommission, maintenance on,
	// ...) with the time it started and the error it returned.
	AdminCall(ctx context.Context, call string, broker int32, start time.Time, err error)
	// Deleted is called by an informer's delete handler with the last state it knew.
	Deleted(resource, namespace, name string, uid types.UID, resourceVersion string)
}

var _ ReconcileHooks = (*Recorder)(nil)

type reconcileContextKey struct{}

// reconcileRef is what BeginReconcile puts in the context.
type reconcileRef struct {
	log *Log
	id  uint64
	key Key
}

func refFrom(ctx context.Context) (*reconcileRef, bool) {
	ref, ok := ctx.Value(reconcileContextKey{}).(*reconcileRef)
	return ref, ok
}

// BeginReconcile implements ReconcileHooks.
func (r *Recorder) BeginReconcile(ctx context.Context, worker int, resource, namespace, name string) context.Context {
	ref := &reconcileRef{log: r.Log(worker), id: r.NextReconcile(), key: Key{resource, namespace, name}}
	return context.WithValue(ctx, reconcileContextKey{}, ref)
}

// ReconcileOf returns the worker and reconcile ID BeginReconcile put in ctx; ok is false when
// ctx carries none.
func ReconcileOf(ctx context.Context) (worker int, reconcile uint64, ok bool) {
	ref, ok := refFrom(ctx)
	if !ok {
		return WorkerNone, 0, false
	}
	return ref.log.worker, ref.id, true
}

// Read implements ReconcileHooks.
func (r *Recorder) Read(ctx context.Context, o trace.Object, start time.Time) {
	e := Event{Kind: KindRead, Key: Key{o.Resource, o.Namespace, o.Name}, UID: string(o.UID), RV: o.ResourceVersion, Found: o.Found, Start: r.Since(start)}
	r.appendIn(ctx, e)
}

// AdminCall implements ReconcileHooks. The call is attributed to the reconcile's own object.
func (r *Recorder) AdminCall(ctx context.Context, call string, broker int32, start time.Time, err error) {
	e := Event{Kind: KindAdmin, Verb: call, Broker: strconv.Itoa(int(broker)), Start: r.Since(start)}
	if ref, ok := refFrom(ctx); ok {
		e.Key = ref.key
	}
	if err != nil {
		e.Err = err.Error()
	}
	r.appendIn(ctx, e)
}

// Deleted implements ReconcileHooks.
func (r *Recorder) Deleted(resource, namespace, name string, uid types.UID, resourceVersion string) {
	now := r.Now()
	r.Log(WorkerInformers).Append(Event{Kind: KindDelete, Source: DeleteObserved, Key: Key{resource, namespace, name},
		UID: string(uid), RV: resourceVersion, Start: now, End: now})
}

// Write records a write made with ctx (its Kind is set to KindWrite), in the reconcile ctx
// carries, if any. A transport wrapper calls it once the answer is back, and calls Gone too
// when a delete's answer says the object is gone.
func (r *Recorder) Write(ctx context.Context, e Event) {
	e.Kind = KindWrite
	r.appendIn(ctx, e)
}

// Gone records that the process's own delete of key removed the object uid, whose last
// resourceVersion was rv ("" if unknown); start is when the delete was sent.
func (r *Recorder) Gone(ctx context.Context, key Key, uid, rv string, start int64) {
	r.appendIn(ctx, Event{Kind: KindDelete, Source: DeleteMade, Key: key, UID: uid, RV: rv, Start: start})
}

// Leading records that the process became leader, holding lease. auditID is the audit ID of
// the Lease write that made it so; "" lets the checker take the process's last successful
// write of lease before this event.
func (r *Recorder) Leading(lease Key, auditID string) {
	now := r.Now()
	r.Log(WorkerElection).Append(Event{Kind: KindLeading, Key: lease, AuditID: auditID, Start: now, End: now})
}

// appendIn appends e to the log of the reconcile ctx carries, or to WorkerNone's.
func (r *Recorder) appendIn(ctx context.Context, e Event) {
	if ref, ok := refFrom(ctx); ok {
		e.Reconcile = ref.id
		ref.log.Append(e)
		return
	}
	r.Log(WorkerNone).Append(e)
}
