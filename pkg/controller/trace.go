package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
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
