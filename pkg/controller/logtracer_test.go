package controller

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/broker-operator/broker-operator/internal/klogtest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// At -v=4 LogTracer logs each read and irreversible call of a reconcile with its worker and
// reconcile, in klog's text format; at -v=3 it logs nothing.
func TestLogTracerLogsReadsAndAdminCallsAtV4(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.c.cfg.Tracer = LogTracer()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for h.c.queue.Len() > 0 { // drop what informer events queued; the test queues its own
		key, _ := h.c.queue.Get()
		h.c.queue.Forget(key)
		h.c.queue.Done(key)
	}
	run := func(verbosity int) string {
		var out klogtest.Buffer
		logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(verbosity), textlogger.Output(&out)))
		h.c.queue.Add(testKey)
		if !h.c.processNextWorkItem(klog.NewContext(h.ctx, logger), 7) {
			t.Fatal("queue shut down")
		}
		return out.String()
	}
	bc, sts := h.stored(), h.statefulSet()
	before := TraceNow()
	out := run(4)
	wants := []string{
		fmt.Sprintf(`] "Traced read" brokercluster=%q worker=7 reconcile=1 resource="brokerclusters" object=%q uid=%q resourceVersion=%q found=true start=`,
			testKey, testKey, bc.UID, bc.ResourceVersion),
		fmt.Sprintf(`] "Traced read" brokercluster=%q worker=7 reconcile=1 resource="statefulsets" object=%q uid=%q resourceVersion=%q found=true start=`,
			testKey, testKey, sts.UID, sts.ResourceVersion),
		fmt.Sprintf(`] "Traced admin call" brokercluster=%q worker=7 reconcile=1 resource="brokerclusters" object=%q call="decommission" broker=%d start=`,
			testKey, testKey, ids[2]),
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	times := regexp.MustCompile(`start=(\d+) end=(\d+)`).FindAllStringSubmatch(out, -1)
	if len(times) != 3 {
		t.Fatalf("found %d start/end pairs, want 3:\n%s", len(times), out)
	}
	after, last := TraceNow(), int64(0)
	for _, m := range times {
		var start, end int64
		fmt.Sscan(m[1], &start)
		fmt.Sscan(m[2], &end)
		if start < before || end < start || end > after || start < last {
			t.Errorf("start=%d end=%d, want within [%d, %d], in order", start, end, before, after)
		}
		last = end
	}
	if !strings.Contains(out, `err=""`) {
		t.Errorf("the admin call's line lacks err=\"\":\n%s", out)
	}
	if out := run(3); strings.Contains(out, "Traced") {
		t.Errorf("at -v=3 the tracer logged:\n%s", out)
	}
}
