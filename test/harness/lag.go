package harness

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Lag is the distribution of the delay added to each chunk of a watch stream: uniform between
// Min and Max. The zero Lag adds nothing.
type Lag struct {
	Min, Max time.Duration
}

// ParseLag parses "MIN-MAX" (each a Go duration, "0" allowed, e.g. "0-50ms" or "5ms-20ms") or
// a single duration for a fixed delay.
func ParseLag(text string) (Lag, error) {
	text = strings.TrimSpace(text)
	parse := func(s string) (time.Duration, error) {
		if s == "0" {
			return 0, nil
		}
		return time.ParseDuration(s)
	}
	lo, hi, ranged := strings.Cut(text, "-")
	if !ranged {
		hi = lo
	}
	var l Lag
	var err error
	if l.Min, err = parse(lo); err != nil {
		return Lag{}, fmt.Errorf("lag %q: %w (want MIN-MAX such as 0-50ms)", text, err)
	}
	if l.Max, err = parse(hi); err != nil {
		return Lag{}, fmt.Errorf("lag %q: %w (want MIN-MAX such as 0-50ms)", text, err)
	}
	if l.Min < 0 || l.Max < l.Min {
		return Lag{}, fmt.Errorf("lag %q: want 0 <= MIN <= MAX", text)
	}
	return l, nil
}

func (l Lag) String() string {
	if l.Min == l.Max {
		return l.Max.String()
	}
	return l.Min.String() + "-" + l.Max.String()
}

// IsZero reports whether l adds no delay.
func (l Lag) IsZero() bool { return l.Max == 0 }

// LagSource draws delays from a seeded generator; it is safe for concurrent use.
type LagSource struct {
	lag Lag
	mu  sync.Mutex
	rng *rand.Rand
}

// NewLagSource returns a LagSource for lag whose draws depend only on seed.
func NewLagSource(lag Lag, seed uint64) *LagSource {
	return &LagSource{lag: lag, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Lag is the distribution the source draws from.
func (s *LagSource) Lag() Lag { return s.lag }

// Draw returns the next delay.
func (s *LagSource) Draw() time.Duration {
	if s.lag.Max == s.lag.Min {
		return s.lag.Min
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lag.Min + time.Duration(s.rng.Int64N(int64(s.lag.Max-s.lag.Min)+1))
}

// lateChunk is what the apiserver sent in one read, and when the reader may see it.
type lateChunk struct {
	data []byte
	due  time.Time
	err  error
}

// lateBody delivers a response body late: a pump reads the real body as fast as the apiserver
// sends it and stamps each chunk with a due time (arrival plus a drawn delay, never earlier than
// the chunk before it, so order is kept); Read hands a chunk out once it is due.
type lateBody struct {
	src    io.ReadCloser
	clock  clock.Clock
	chunks chan lateChunk
	closed chan struct{}
	once   sync.Once

	rest []byte // what is left of the chunk being read
	err  error  // the error that ended the stream, once reached
}

// maxQueuedChunks bounds the memory a stalled reader can pin; the pump waits beyond it.
const maxQueuedChunks = 4096

// NewLateBody wraps a watch response body so that each chunk reaches the reader delays() after
// it arrived, in order. Close stops it and closes src.
func NewLateBody(src io.ReadCloser, delays func() time.Duration, clk clock.Clock) io.ReadCloser {
	return newLateBody(src, delays, clk)
}

func newLateBody(src io.ReadCloser, delays func() time.Duration, clk clock.Clock) *lateBody {
	b := &lateBody{src: src, clock: clk, chunks: make(chan lateChunk, maxQueuedChunks), closed: make(chan struct{})}
	go b.pump(delays)
	return b
}

func (b *lateBody) pump(delays func() time.Duration) {
	var last time.Time
	buf := make([]byte, 32*1024)
	for {
		n, err := b.src.Read(buf)
		c := lateChunk{err: err}
		if n > 0 {
			c.data = append([]byte(nil), buf[:n]...)
		}
		c.due = b.clock.Now().Add(delays())
		if c.due.Before(last) {
			c.due = last
		}
		last = c.due
		if n > 0 || err != nil {
			select {
			case b.chunks <- c:
			case <-b.closed:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (b *lateBody) Read(p []byte) (int, error) {
	for len(b.rest) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		var c lateChunk
		select {
		case c = <-b.chunks:
		case <-b.closed:
			return 0, errBodyClosed
		}
		if wait := c.due.Sub(b.clock.Now()); wait > 0 {
			t := b.clock.NewTimer(wait)
			select {
			case <-t.C():
			case <-b.closed:
				t.Stop()
				return 0, errBodyClosed
			}
		}
		b.rest, b.err = c.data, c.err
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

var errBodyClosed = errors.New("harness: read on a closed watch body")

// Close stops the pump and closes the real body.
func (b *lateBody) Close() error {
	var err error
	b.once.Do(func() {
		close(b.closed)
		err = b.src.Close()
	})
	return err
}
