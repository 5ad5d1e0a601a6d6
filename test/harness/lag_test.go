package harness

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	testingclock "k8s.io/utils/clock/testing"
)

func TestParseLag(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Lag
	}{
		{"0-50ms", Lag{0, 50 * time.Millisecond}},
		{"5ms-20ms", Lag{5 * time.Millisecond, 20 * time.Millisecond}},
		{"20ms", Lag{20 * time.Millisecond, 20 * time.Millisecond}},
		{" 0 ", Lag{}},
		{"1s-1s", Lag{time.Second, time.Second}},
	} {
		got, err := ParseLag(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseLag(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, err := ParseLag(got.String()); err != nil || back != got {
			t.Errorf("ParseLag(%q.String() = %q) = %v, %v", tt.in, got.String(), back, err)
		}
	}
	for _, bad := range []string{"", "x", "50ms-10ms", "-5ms", "5ms-", "0-50"} {
		if got, err := ParseLag(bad); err == nil {
			t.Errorf("ParseLag(%q) = %v, want an error", bad, got)
		}
	}
}

func TestLagSourceDrawsWithinBoundsAndReplaysFromTheSeed(t *testing.T) {
	lag := Lag{10 * time.Millisecond, 50 * time.Millisecond}
	a, b, c := NewLagSource(lag, 7), NewLagSource(lag, 7), NewLagSource(lag, 8)
	same, differs := true, false
	for range 1000 {
		x, y, z := a.Draw(), b.Draw(), c.Draw()
		if x < lag.Min || x > lag.Max {
			t.Fatalf("drew %v outside %v", x, lag)
		}
		same = same && x == y
		differs = differs || x != z
	}
	if !same {
		t.Error("two sources with one seed drew different delays")
	}
	if !differs {
		t.Error("two seeds drew the same 1000 delays")
	}
}

// lateBodyFixture is a lateBody over a pipe, read by a goroutine that reports each Read.
type lateBodyFixture struct {
	clock *testingclock.FakeClock
	pipe  *io.PipeWriter
	body  *lateBody
	reads chan readResult
	// drawn gets a value each time the pump draws a chunk's delay, which it does after reading
	// the clock: a write to the pipe returns once the pump has the bytes, maybe before that.
	drawn chan struct{}
}

type readResult struct {
	data string
	err  error
}

func newLateBodyFixture(t *testing.T, delays ...time.Duration) *lateBodyFixture {
	t.Helper()
	pr, pw := io.Pipe()
	f := &lateBodyFixture{clock: testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), pipe: pw,
		reads: make(chan readResult, 16), drawn: make(chan struct{}, 16)}
	next := 0
	f.body = newLateBody(pr, func() time.Duration {
		d := delays[next%len(delays)]
		next++
		f.drawn <- struct{}{}
		return d
	}, f.clock)
	t.Cleanup(func() { _ = f.body.Close() })
	return f
}

// readOnce starts one Read.
func (f *lateBodyFixture) readOnce() {
	go func() {
		buf := make([]byte, 64)
		n, err := f.body.Read(buf)
		f.reads <- readResult{string(buf[:n]), err}
	}()
}

// awaitTimer waits until the reader waits on the clock.
func (f *lateBodyFixture) awaitTimer(t *testing.T) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return f.clock.HasWaiters(), nil
	})
	if err != nil {
		t.Fatal("the reader never waited for its chunk to be due")
	}
}

// awaitDrawn waits until the pump has stamped n more chunks with the time they are due.
func (f *lateBodyFixture) awaitDrawn(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-f.drawn:
		case <-time.After(10 * time.Second):
			t.Fatal("the pump never stamped its chunk")
		}
	}
}

func (f *lateBodyFixture) noReadYet(t *testing.T) {
	t.Helper()
	select {
	case r := <-f.reads:
		t.Fatalf("read %q (%v) before its chunk was due", r.data, r.err)
	default:
	}
}

func TestLateBodyHoldsEachChunkForItsDelayAndKeepsOrder(t *testing.T) {
	// "a" is due 30ms after it arrived; "b" drew 10ms but may not overtake "a".
	f := newLateBodyFixture(t, 30*time.Millisecond, 10*time.Millisecond)
	if _, err := f.pipe.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pipe.Write([]byte("b")); err != nil {
		t.Fatal(err)
	}
	f.awaitDrawn(t, 2) // both stamped before the clock moves
	f.readOnce()
	f.awaitTimer(t)
	f.clock.Step(29 * time.Millisecond)
	f.noReadYet(t)
	f.clock.Step(time.Millisecond)
	if r := <-f.reads; r.data != "a" || r.err != nil {
		t.Fatalf("first read %q, %v; want a", r.data, r.err)
	}
	// "b" became due with "a": no more waiting.
	f.readOnce()
	if r := <-f.reads; r.data != "b" || r.err != nil {
		t.Fatalf("second read %q, %v; want b", r.data, r.err)
	}
}

func TestLateBodyDeliversTheEndOfTheStreamLateToo(t *testing.T) {
	f := newLateBodyFixture(t, 5*time.Millisecond)
	if _, err := f.pipe.Write([]byte("last")); err != nil {
		t.Fatal(err)
	}
	f.readOnce()
	f.awaitTimer(t)
	f.noReadYet(t)
	f.clock.Step(5 * time.Millisecond)
	if r := <-f.reads; r.data != "last" || r.err != nil {
		t.Fatalf("read %q, %v; want last", r.data, r.err)
	}
	// The stream ends now; the reader learns it 5ms later.
	if err := f.pipe.Close(); err != nil {
		t.Fatal(err)
	}
	f.readOnce()
	f.awaitTimer(t)
	f.noReadYet(t)
	f.clock.Step(5 * time.Millisecond)
	if r := <-f.reads; r.err != io.EOF {
		t.Fatalf("read %q, %v; want EOF", r.data, r.err)
	}
}

func TestLateBodyCloseReleasesAWaitingReader(t *testing.T) {
	f := newLateBodyFixture(t, time.Hour)
	go func() { _, _ = f.pipe.Write([]byte("never seen")) }()
	f.readOnce()
	f.awaitTimer(t)
	if err := f.body.Close(); err != nil {
		t.Fatal(err)
	}
	if r := <-f.reads; !errors.Is(r.err, errBodyClosed) || r.data != "" {
		t.Fatalf("read %q, %v after Close; want errBodyClosed", r.data, r.err)
	}
}
