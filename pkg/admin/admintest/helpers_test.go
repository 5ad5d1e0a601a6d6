package admintest_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// newSim starts a simulator on a fake clock and closes it when the test ends.
func newSim(t *testing.T, opts admintest.Options) (*admintest.Server, *admintest.FakeClock) {
	t.Helper()
	clock := admintest.NewFakeClock(epoch)
	if opts.Clock == nil {
		opts.Clock = clock
	}
	s := admintest.NewServer(opts)
	t.Cleanup(s.Close)
	return s, clock
}

// clientFor returns a client for brokers 0..replicas-1 of c.
func clientFor(t *testing.T, c *admintest.Cluster, replicas int) admin.Client {
	t.Helper()
	cfg := c.Config(replicas)
	cfg.Timeout = 5 * time.Second
	cl, err := admin.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// joinAll joins ordinals 0..n-1 and returns their node IDs.
func joinAll(c *admintest.Cluster, n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = c.Join(i)
	}
	return ids
}

func itoa(n int) string { return strconv.Itoa(n) }
