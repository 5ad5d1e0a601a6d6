package history_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/controller/trace"

	"github.com/broker-operator/broker-operator/test/history"
)

func TestRecorderMergesConcurrentWorkers(t *testing.T) {
	rec := history.NewRecorder("operator-0")
	// The process's own write, which every later read is judged against.
	rec.Write(context.Background(), history.Event{Key: bcKey, Verb: "patch", UID: "u1", RV: "10", Code: 200, Start: rec.Now()})
	const workers, perWorker = 4, 3000 // more than one chunk each
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for n := range perWorker {
				ctx := rec.BeginReconcile(context.Background(), w, "brokerclusters", "ns", "bc-1")
				rec.Read(ctx, trace.Object{Resource: "brokerclusters", Namespace: "ns", Name: "bc-1", UID: "u1", ResourceVersion: "10", Found: true}, time.Now())
				rec.AdminCall(ctx, "decommission", int32(w*perWorker+n), time.Now(), nil) // each broker once
			}
		})
	}
	wg.Wait()
	h := rec.History()
	h.Events = h.Events[1:] // the write; it belongs to no worker
	if len(h.Events) != workers*perWorker*2 {
		t.Fatalf("%d events, want %d", len(h.Events), workers*perWorker*2)
	}
	reconciles := map[uint64]int{}
	for i, e := range h.Events {
		if i > 0 && e.Start < h.Events[i-1].Start {
			t.Fatalf("event %d starts before event %d", i, i-1)
		}
		if e.Reconcile == 0 || e.Worker < 0 || e.Worker >= workers || e.End < e.Start {
			t.Fatalf("event %d: %+v", i, e)
		}
		reconciles[e.Reconcile]++
	}
	if len(reconciles) != workers*perWorker {
		t.Errorf("%d reconcile IDs, want %d", len(reconciles), workers*perWorker)
	}
	r := history.Check(history.Input{Histories: []*history.History{rec.History()}})
	if len(r.Violations) != 0 || r.Judged[history.FreshDecisions] != workers*perWorker || r.Err() != nil {
		t.Errorf("a clean recording: %s", r.Summary())
	}
}

func TestRecorderAttributesByContext(t *testing.T) {
	rec := history.NewRecorder("p")
	ctx := rec.BeginReconcile(context.Background(), 3, "brokerclusters", "ns", "bc-1")
	if w, id, ok := history.ReconcileOf(ctx); !ok || w != 3 || id != 1 {
		t.Errorf("ReconcileOf = %d, %d, %v; want 3, 1, true", w, id, ok)
	}
	start := rec.Now()
	rec.Write(ctx, history.Event{Key: stsKey, Verb: "delete", Code: 200, Start: start})
	rec.Gone(ctx, stsKey, "s1", "", start)
	rec.AdminCall(ctx, "maintenance-on", 1, time.Now(), errors.New("boom"))
	rec.Read(context.Background(), trace.Object{Resource: "statefulsets", Namespace: "ns", Name: "bc-1", UID: "", ResourceVersion: "", Found: false}, time.Now())
	rec.Deleted("statefulsets", "ns", "bc-1", "s1", "7")
	rec.Leading(lease, "l-1")
	got := map[history.Kind]history.Event{}
	for _, e := range rec.History().Events {
		got[e.Kind] = e
	}
	if e := got[history.KindWrite]; e.Worker != 3 || e.Reconcile != 1 || e.Key != stsKey {
		t.Errorf("write: %+v", e)
	}
	if e := got[history.KindAdmin]; e.Key != bcKey || e.Broker != "1" || e.Err != "boom" || e.Reconcile != 1 {
		t.Errorf("admin call: %+v", e)
	}
	if e := got[history.KindRead]; e.Worker != history.WorkerNone || e.Reconcile != 0 || e.Found {
		t.Errorf("read outside a reconcile: %+v", e)
	}
	if e := got[history.KindLeading]; e.Worker != history.WorkerElection || e.AuditID != "l-1" {
		t.Errorf("leading: %+v", e)
	}
}

func TestHistoryRoundTrips(t *testing.T) {
	rec := history.NewRecorder("operator-1")
	ctx := rec.BeginReconcile(context.Background(), 1, "brokerclusters", "ns", "bc-1")
	rec.Read(ctx, trace.Object{Resource: "brokerclusters", Namespace: "ns", Name: "bc-1", UID: "u1", ResourceVersion: "10", Found: true}, time.Now())
	rec.Write(ctx, history.Event{Key: bcKey, Verb: "patch", Precondition: "10", UID: "u1", RV: "11", Code: 200, AuditID: "a-1", Start: rec.Now()})
	rec.Deleted("statefulsets", "ns", "bc-1", "s1", "7")
	rec.Leading(lease, "")
	h := rec.History()
	h.Unreadable = 3
	var buf bytes.Buffer
	n, err := h.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v; wrote %d bytes", n, err, buf.Len())
	}
	back, err := history.ReadHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Process != h.Process || !back.Anchor.Equal(h.Anchor) || len(back.Events) != len(h.Events) || back.Unreadable != 3 {
		t.Fatalf("read back %s %v %d events, want %s %v %d", back.Process, back.Anchor, len(back.Events), h.Process, h.Anchor, len(h.Events))
	}
	for i := range h.Events {
		if back.Events[i] != h.Events[i] {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, back.Events[i], h.Events[i])
		}
	}
}

func TestReadHistoryRejectsBadInput(t *testing.T) {
	hdr := `{"history":1,"process":"p","anchor":"2026-12-02T02:19:00Z"}` + "\n"
	tests := map[string]struct{ in, want string }{
		"empty":          {"", "empty input"},
		"no header":      {"[]\n", "line 1"},
		"future version": {`{"history":2,"process":"p"}` + "\n", "format version 2"},
		"unknown kind":   {hdr + `{"kind":"peek","start":1,"end":2}` + "\n", "line 2: unknown event kind"},
		"backwards":      {hdr + `{"kind":"read","start":1,"end":2}` + "\n" + `{"kind":"read","start":5,"end":2}` + "\n", "line 3"},
		"not json":       {hdr + "{\n", "line 2"},
		"unknown field":  {hdr + `{"kind":"read","start":1,"end":2,"rev":"7"}` + "\n", `line 2: json: unknown field "rev"`},
		"unknown header": {`{"history":1,"process":"p","anchr":"2026-12-02T02:19:00Z"}` + "\n", `line 1: header: json: unknown field "anchr"`},
		"no start":       {hdr + `{"kind":"read","end":2}` + "\n", "line 2: read event without start or end"},
		"no end":         {hdr + `{"kind":"admin","start":1}` + "\n", "line 2: admin event without start or end"},
		"two values":     {hdr + `{"kind":"read","start":1,"end":2} {}` + "\n", "line 2: more than one JSON value"},
		"line too long": {hdr + `{"kind":"read","start":1,"end":2}` + "\n" + `{"kind":"read","start":1,"end":2,"err":"` +
			strings.Repeat("x", 1024*1024) + `"}` + "\n", "line 3: longer than 1048576 bytes"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := history.ReadHistory(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadHistory = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// BenchmarkLogAppend is the recorder's cost per event on the hot path: one worker appending
// to its own log.
func BenchmarkLogAppend(b *testing.B) {
	log := history.NewRecorder("bench").Log(1)
	e := history.Event{Kind: history.KindRead, Reconcile: 1, Key: bcKey, UID: "u1", RV: "12345", Found: true}
	b.ReportAllocs()
	for b.Loop() {
		e.Start = log.Now()
		log.Append(e)
	}
}

// BenchmarkSliceAppend is the floor BenchmarkLogAppend compares with: the same events
// appended to a plain slice, with neither clock nor lock.
func BenchmarkSliceAppend(b *testing.B) {
	var events []history.Event
	e := history.Event{Kind: history.KindRead, Reconcile: 1, Key: bcKey, UID: "u1", RV: "12345", Found: true}
	b.ReportAllocs()
	for b.Loop() {
		events = append(events, e)
	}
	_ = events
}

// BenchmarkRecorderRead is a read recorded through ReconcileHooks, as a controller would call
// it: the worker and reconcile come from the context.
func BenchmarkRecorderRead(b *testing.B) {
	rec := history.NewRecorder("bench")
	ctx := rec.BeginReconcile(context.Background(), 1, "brokerclusters", "ns", "bc-1")
	b.ReportAllocs()
	for b.Loop() {
		rec.Read(ctx, trace.Object{Resource: "brokerclusters", Namespace: "ns", Name: "bc-1", UID: "u1", ResourceVersion: "12345", Found: true}, time.Now())
	}
}

// BenchmarkRecorderReadParallel is the same with every P recording into its own worker's log.
func BenchmarkRecorderReadParallel(b *testing.B) {
	rec := history.NewRecorder("bench")
	var mu sync.Mutex
	worker := 0
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		worker++
		ctx := rec.BeginReconcile(context.Background(), worker, "brokerclusters", "ns", "bc-1")
		mu.Unlock()
		for pb.Next() {
			rec.Read(ctx, trace.Object{Resource: "brokerclusters", Namespace: "ns", Name: "bc-1", UID: "u1", ResourceVersion: "12345", Found: true}, time.Now())
		}
	})
}
