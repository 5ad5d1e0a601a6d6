package writebacktest_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// awaitWaiter blocks until the delaying watch waits on the fake clock: a condition, not a
// guess about timing.
func awaitWaiter(t *testing.T, clk *testingclock.FakeClock) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the delaying watch never waited")
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}

func TestDelayingWatchDelaysAndKeepsOrder(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	delays := make(chan time.Duration, 2)
	delays <- 5 * time.Second
	delays <- time.Second
	inner := watch.NewFake()
	w := writebacktest.NewDelayingWatch(inner, func() time.Duration { return <-delays }, clk)
	defer w.Stop()

	inner.Add(named("slow"))
	inner.Add(named("fast"))
	// Both delays drawn: both events are queued with their due times.
	delays <- 0
	delays <- 0
	awaitWaiter(t, clk)
	clk.Step(time.Second)
	noEvent(t, w) // "fast" is due, but may not overtake "slow"
	awaitWaiter(t, clk)
	clk.Step(4 * time.Second)
	if ev := receive(t, w); ev.Object.(interface{ GetName() string }).GetName() != "slow" {
		t.Fatal("first delivered event is not the first received")
	}
	if ev := receive(t, w); ev.Object.(interface{ GetName() string }).GetName() != "fast" {
		t.Fatal("second delivered event is not the second received")
	}
}
