//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/broker-operator/broker-operator/test/brokersim"
)

// storyReasons are the events that start or finish a scale, a decommission or a restart.
var storyReasons = []string{"ScaleUp", "StartDecommission", "AdoptDrain", "SkipAbsentBroker", "FinishDecommission",
	"Recommission", "CancelDecommission", "StartRestart", "RestartSingleBroker", "RestartPod", "FinishRestart"}

// pollReasons are the waits that a step began: one of their polls must never be an event.
var pollReasons = []string{"WaitForDrain", "WaitForLeadershipDrain", "WaitForRestart"}

// TestEventsTellTheStory scales 5 → 2, rolls the 2 brokers onto a new pod template, and scales
// up to 4, with drains and leadership moves that last several polls. Every start and finish of
// each decommission and each restart is one Event, in order, naming its broker and pod; no poll
// is an Event and no Event is repeated. While a broker restarts, kubectl get shows it in the
// RESTARTING and STEP columns.
func TestEventsTellTheStory(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "story"
	events := recordEvents(t, ns, name)
	op := startOperator(t, ns, "a")
	env.CreateCluster(t, ns, name, 5, time.Second) // a drain lasts about five polls of 200ms
	env.AwaitConverged(t, ns, name, 5)
	ids := env.NodeIDs(t, ns, name, 5)

	env.Scale(t, ns, name, 2)
	env.AwaitConverged(t, ns, name, 2)
	env.Sim.Cluster(ns, name).SetMaintenanceDrainTime(2 * time.Second)
	env.Sim.Cluster(ns, name).SetControllerLeader(0) // restarted last anyway: the order stays highest first
	setImage(t, ns, name, "registry.invalid/broker:2")
	columns := awaitKubectlRestarting(t, ns, name)
	if columns["RESTARTING"] != name+"-1" || columns["STEP"] != "Draining" {
		t.Errorf("kubectl get bc while the first broker restarts: RESTARTING %q, STEP %q, want %s-1 and Draining",
			columns["RESTARTING"], columns["STEP"], name)
	}
	awaitImageRolledOut(t, ns, name, 2, "registry.invalid/broker:2")
	env.Scale(t, ns, name, 4)
	env.AwaitConverged(t, ns, name, 4)

	want := wantStory(name, ids)
	story := events.awaitStory(t, len(want))
	all, updates := events.snapshot()
	for i, w := range want {
		if i >= len(story) || story[i].Reason != w.reason || !strings.Contains(story[i].Message, w.says) {
			t.Errorf("story event %d is %s, want %s saying %q", i, eventString(story, i), w.reason, w.says)
		}
	}
	if len(story) != len(want) {
		t.Errorf("%d story events, want %d", len(story), len(want))
	}
	checkNoRepeatedEvents(t, all, updates)
	for _, poll := range []string{"WaitForDrain", "WaitForLeadershipDrain"} {
		if n := op.decisions(poll); n < 2 {
			t.Errorf("the operator decided %s %d times; the test needs waits that last several polls", poll, n)
		}
	}
	if t.Failed() {
		for _, e := range all {
			t.Logf("%s %s: %s (count %d)", e.Type, e.Reason, e.Message, e.Count)
		}
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// told is an event of the story: its reason and part of its message.
type told struct{ reason, says string }

// wantStory is the story of the scenario: create 5, scale down to 2 (brokers of ordinals 4, 3
// and 2 go, in that order), restart the brokers of ordinals 1 and 0, scale up to 4.
func wantStory(name string, ids []int) []told {
	want := []told{{"ScaleUp", "scaling up from 0 to 5 brokers"}}
	for ordinal := 4; ordinal >= 2; ordinal-- {
		b := fmt.Sprintf("broker %d (pod %s-%d)", ids[ordinal], name, ordinal)
		want = append(want, told{"StartDecommission", "decommissioning " + b}, told{"FinishDecommission", b + " has left the cluster"})
	}
	for ordinal := 1; ordinal >= 0; ordinal-- {
		b := fmt.Sprintf("broker %d (pod %s-%d)", ids[ordinal], name, ordinal)
		want = append(want, told{"StartRestart", "restarting " + b}, told{"RestartPod", "restarting " + b}, told{"FinishRestart", b + " is back"})
	}
	return append(want, told{"ScaleUp", "scaling up from 2 to 4 brokers"})
}

// decisions counts the decisions of a kind in the operator's log (-v=2 logs one line each).
func (op *operator) decisions(kind string) int {
	data, err := os.ReadFile(op.logPath)
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"Decision"`) && strings.Contains(line, `step="`+kind+`"`) {
			n++
		}
	}
	return n
}

// checkNoRepeatedEvents fails on an Event of a poll, on two Events that say the same, and on an
// Event the operator recorded again (its count raised by an update).
func checkNoRepeatedEvents(t *testing.T, all []corev1.Event, updates int) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range all {
		if slices.Contains(pollReasons, e.Reason) {
			t.Errorf("a poll was an event: %s %s", e.Reason, e.Message)
		}
		key := e.Type + " " + e.Reason + " " + e.Message
		if seen[key] || e.Count > 1 {
			t.Errorf("event repeated: %s (count %d)", key, e.Count)
		}
		seen[key] = true
	}
	if updates > 0 {
		t.Errorf("%d Events were updated, that is recorded again", updates)
	}
}

func eventString(events []corev1.Event, i int) string {
	if i >= len(events) {
		return "missing"
	}
	return fmt.Sprintf("%s %q", events[i].Reason, events[i].Message)
}

// awaitKubectlRestarting runs kubectl get bc until its RESTARTING column names a pod, and
// returns the row's columns by header.
func awaitKubectlRestarting(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	var row map[string]string
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		out, err := brokersim.Kubectl(ctx, env.cp.KubeconfigPath, "-n", ns, "get", "bc", name)
		if err != nil {
			return false, err
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 {
			return false, fmt.Errorf("kubectl get bc printed %q, want a header and one row", out)
		}
		row = columnsOf(lines[0], lines[1])
		return row["RESTARTING"] != "" && row["RESTARTING"] != "<none>", nil
	})
	if err != nil {
		t.Fatalf("kubectl get bc %s never showed a broker restarting (last row %v): %v", name, row, err)
	}
	return row
}

// columnsOf reads a row of kubectl's table by its header: each column starts where its heading
// does (an empty cell is blanks only).
func columnsOf(header, line string) map[string]string {
	row := map[string]string{}
	var starts []int
	for i := range header {
		if header[i] != ' ' && (i == 0 || header[i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	for n, start := range starts {
		end := len(header)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		name := strings.TrimSpace(header[start:end])
		if n+1 == len(starts) {
			end = len(line)
		}
		if start < len(line) {
			row[name] = strings.TrimSpace(line[start:min(end, len(line))])
		}
	}
	return row
}

// eventLog records the Events about one BrokerCluster in the order the apiserver stored them.
type eventLog struct {
	mu       sync.Mutex
	events   []corev1.Event
	modified int
	added    chan struct{}
}

// recordEvents watches the Events of namespace ns about the BrokerCluster name from now on.
func recordEvents(t *testing.T, ns, name string) *eventLog {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	client := env.Kube.CoreV1().Events(ns)
	initial, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	l := &eventLog{added: make(chan struct{}, 1)}
	watchFrom(t, ctx, cancel, initial.ResourceVersion, client.Watch, func(ev watch.Event) {
		if e, ok := ev.Object.(*corev1.Event); ok && e.InvolvedObject.Kind == "BrokerCluster" && e.InvolvedObject.Name == name {
			l.add(ev.Type, e)
		}
	})
	return l
}

func (l *eventLog) add(typ watch.EventType, e *corev1.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch typ {
	case watch.Added:
		l.events = append(l.events, *e)
	case watch.Modified:
		l.modified++
		if i := slices.IndexFunc(l.events, func(x corev1.Event) bool { return x.UID == e.UID }); i >= 0 {
			l.events[i] = *e
		}
	}
	select {
	case l.added <- struct{}{}:
	default:
	}
}

// snapshot returns the Events so far and how many updates of them arrived.
func (l *eventLog) snapshot() (events []corev1.Event, updates int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events), l.modified
}

// awaitStory waits until n story Events have arrived (the operator sends an Event after the
// status write a convergence check sees), or convergeLimit has passed, and returns them.
func (l *eventLog) awaitStory(t *testing.T, n int) []corev1.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), convergeLimit)
	defer cancel()
	for {
		var story []corev1.Event
		all, _ := l.snapshot()
		for _, e := range all {
			if slices.Contains(storyReasons, e.Reason) {
				story = append(story, e)
			}
		}
		if len(story) >= n {
			return story
		}
		select {
		case <-l.added:
		case <-ctx.Done():
			return story
		}
	}
}
