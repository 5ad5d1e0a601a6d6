// Package klogtest captures klog's output in tests: a buffer safe for the goroutines that log
// (klog's flush daemon among them), and klog set to -v=10 into one until the test ends.
package klogtest

import (
	"bytes"
	"flag"
	"sync"
	"testing"

	"k8s.io/klog/v2"
)

// Buffer is a bytes.Buffer safe for the loggers of several goroutines.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// AtV10 sends klog's output, at -v=10 and nowhere else, into a Buffer until the test ends,
// when klog's state is restored. The test must not run in parallel with others that log.
func AtV10(t testing.TB) *Buffer {
	t.Helper()
	state := klog.CaptureState()
	t.Cleanup(state.Restore)
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"v": "10", "logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := fs.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	out := &Buffer{}
	klog.SetOutput(out)
	return out
}
