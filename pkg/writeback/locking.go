package writeback

import "k8s.io/klog/v2"

// Locking. Readers take no lock: they load the entry table atomically. Writers (Record,
// RecordDelete, Sweep and the informer event handler) serialise on Overlay.mu.
//
// Lock order: Overlay.mu, then the informer's store (its GetByKey, List and
// LastStoreSyncResourceVersion take the store's lock). Never the other way: client-go runs
// event handlers outside the store's lock, and nothing inside the store calls the overlay.
//
// Under Overlay.mu the overlay takes no other lock and makes no call that can block: metrics
// are atomic counters and gauges, and log lines are queued (logLocked, logErrorLocked) and
// written by unlock once the mutex is released, because a logger may block on its output.
// TestNoLogUnderTheOverlaysLock holds a logger's output and checks that writes go on.

// logLine is a log call made under Overlay.mu, written after it is released.
type logLine struct {
	isError bool
	level   int
	msg     string
	kv      []any
}

// logLocked queues an info line at level. Callers hold o.mu.
func (o *Overlay) logLocked(level int, msg string, kv ...any) {
	if o.logger.V(level).Enabled() {
		o.queued = append(o.queued, logLine{level: level, msg: msg, kv: kv})
	}
}

// logErrorLocked queues an error line. Callers hold o.mu.
func (o *Overlay) logErrorLocked(msg string, kv ...any) {
	o.queued = append(o.queued, logLine{isError: true, msg: msg, kv: kv})
}

// unlock releases o.mu, then writes the lines queued under it.
func (o *Overlay) unlock() {
	lines := o.queued
	o.queued = nil
	o.mu.Unlock()
	for _, l := range lines {
		l.write(o.logger)
	}
}

func (l logLine) write(logger klog.Logger) {
	if l.isError {
		logger.Error(nil, l.msg, l.kv...)
		return
	}
	logger.V(l.level).Info(l.msg, l.kv...)
}
