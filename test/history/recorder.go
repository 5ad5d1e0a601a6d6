package history

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// chunkSize is how many events a Log allocates at once: growing a log never copies what it
// already holds, and allocates once per chunkSize events.
const chunkSize = 1024

// Recorder records one process's history. Give each worker goroutine its own Log; reconcile
// IDs come from NextReconcile. History merges the logs once recording is over.
type Recorder struct {
	process string
	anchor  time.Time // carries the monotonic reading all event times are measured from

	reconciles atomic.Uint64

	mu   sync.Mutex
	logs map[int]*Log
}

// NewRecorder returns a Recorder for the process named process.
func NewRecorder(process string) *Recorder {
	return &Recorder{process: process, anchor: time.Now(), logs: map[int]*Log{}}
}

// Now returns the current time on the recorder's monotonic clock: what Event.Start and End
// hold.
func (r *Recorder) Now() int64 { return int64(time.Since(r.anchor)) }

// Since converts t, read from the real clock (with its monotonic reading), to the recorder's
// clock.
func (r *Recorder) Since(t time.Time) int64 { return int64(t.Sub(r.anchor)) }

// NextReconcile returns a new reconcile ID, unique within the process; the first is 1.
func (r *Recorder) NextReconcile() uint64 { return r.reconciles.Add(1) }

// Log returns worker's log, making it on first use. A Log is safe for concurrent use, but is
// cheapest when one goroutine appends to it.
func (r *Recorder) Log(worker int) *Log {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.logs[worker]
	if !ok {
		l = &Log{rec: r, worker: worker}
		r.logs[worker] = l
	}
	return l
}

// History returns everything recorded so far, merged and sorted. Call it once the workers
// have stopped; events appended meanwhile may or may not be included.
func (r *Recorder) History() *History {
	r.mu.Lock()
	logs := make([]*Log, 0, len(r.logs))
	for _, l := range r.logs {
		logs = append(logs, l)
	}
	r.mu.Unlock()
	h := &History{Process: r.process, Anchor: r.anchor}
	for _, l := range logs {
		h.Events = l.appendTo(h.Events)
	}
	sortEvents(h.Events)
	return h
}

// sortEvents puts events in the order of History.Events.
func sortEvents(events []Event) {
	slices.SortStableFunc(events, compareEvents)
}

func compareEvents(a, b Event) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Worker, b.Worker), cmp.Compare(a.Seq, b.Seq))
}

// Log is one worker's append-only event log.
type Log struct {
	rec    *Recorder
	worker int

	mu     sync.Mutex // uncontended when one goroutine appends
	seq    uint64
	full   [][]Event // chunks that are full
	filled []Event   // the chunk being filled, with capacity chunkSize
}

// Now is the recorder's clock (Recorder.Now).
func (l *Log) Now() int64 { return l.rec.Now() }

// Append records e, setting its Worker and Seq. Zero End means now.
func (l *Log) Append(e Event) {
	if e.End == 0 {
		e.End = l.rec.Now()
	}
	l.mu.Lock()
	l.seq++
	e.Worker, e.Seq = l.worker, l.seq
	if len(l.filled) == cap(l.filled) {
		if l.filled != nil {
			l.full = append(l.full, l.filled)
		}
		l.filled = make([]Event, 0, chunkSize)
	}
	l.filled = append(l.filled, e)
	l.mu.Unlock()
}

func (l *Log) appendTo(dst []Event) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.full {
		dst = append(dst, c...)
	}
	return append(dst, l.filled...)
}
