package controller

import "github.com/broker-operator/broker-operator/pkg/controller/trace"

// Tracer is told what each reconcile read and which irreversible calls it made, so that an
// experiment can record the operator's history and check it offline (test/history implements
// it). The parameters are plain types so that the controller imports nothing of the checker.
// Every method runs on the worker's goroutine and must be quick and safe for concurrent use.
type Tracer = trace.Tracer

// LogTracer returns a Tracer that logs, at -v=4, each read and each irreversible call of a
// reconcile, with its worker and reconcile ID: the operator's history, for a test that runs it as
// a separate process (test/soak parses these lines). The lines are "Traced read" (worker,
// reconcile, resource, object, uid, resourceVersion, found, start, end) and "Traced admin call"
// (worker, reconcile, resource, object: the reconciled object, call, broker, start, end, err).
// start and end are read from TraceNow's clock.
func LogTracer() Tracer { return trace.Log() }

// TraceNow returns the time on the clock of LogTracer's start and end: nanoseconds of the
// system's monotonic clock (CLOCK_MONOTONIC where there is one, else Unix nanoseconds), which
// every process of the machine reads alike. A reader of the traced lines compares its own
// readings with them.
func TraceNow() int64 { return trace.Now() }

// hooks are the controller's tracer and read hook.
func (c *Controller) hooks() trace.Hooks {
	return trace.Hooks{Tracer: c.cfg.Tracer, ReadHook: c.cfg.ReadHook}
}
