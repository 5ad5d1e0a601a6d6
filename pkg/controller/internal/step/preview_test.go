package step

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// previewCluster is a cluster "rp" of current brokers wanting desired, at generation 7, whose
// pods rp-N run broker 100+N: the pods at the outdated ordinals made from template "old" on image
// redpanda:v25.1.1, the others from "new" on redpanda:v25.1.2 (spec.image).
type previewCluster struct {
	bc   *v1alpha1.BrokerCluster
	pods map[int]*corev1.Pod
}

func newPreviewCluster(current, desired int32, outdated ...int) previewCluster {
	c := previewCluster{
		bc: &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "rp", Generation: 7},
			Spec:   v1alpha1.BrokerClusterSpec{Replicas: desired, Image: "redpanda:v25.1.2"},
			Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: current, ObservedGeneration: 7}},
		pods: map[int]*corev1.Pod{},
	}
	for ordinal := range int(current) {
		revision, image := "new", "redpanda:v25.1.2"
		if slices.Contains(outdated, ordinal) {
			revision, image = "old", "redpanda:v25.1.1"
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("rp-%d", ordinal), UID: types.UID(fmt.Sprintf("u%d", ordinal)),
			Annotations: map[string]string{brokerpod.AnnotationTemplateHash: revision, brokerpod.AnnotationNodeID: fmt.Sprint(100 + ordinal)}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "broker", Image: image}}}}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		c.pods[ordinal] = p
	}
	return c
}

// observe is what a reconcile observes of the cluster, the brokers' health as given.
func (c previewCluster) observe(configRestarts map[int32]bool, health Health) Observation {
	st := c.bc.Status
	return Observation{Cluster: c.bc.Name, Desired: c.bc.Spec.Replicas, Current: st.CurrentReplicas, Decommissioning: st.DecommissioningBroker,
		Health: health, Victim: Victim{Ordinal: NextToGo(st.CurrentReplicas)},
		Rollout: ObserveRollout(c.bc, "new", c.pods, configRestarts, time.Now())}
}

// summary is the preview's disruptions in one line each: "Restart rp-2 (102): reason".
func summary(p *v1alpha1.DisruptionPreview) []string {
	var out []string
	for _, d := range p.Disruptions {
		id := "?"
		if d.BrokerID != nil {
			id = fmt.Sprint(*d.BrokerID)
		}
		line := fmt.Sprintf("%s %s (%s): %s", d.Action, d.Pod, id, d.Reason)
		if d.UnderWay {
			line = "under way: " + line
		}
		out = append(out, line)
	}
	return out
}

// checkPreview checks the preview's disruptions against want, as summary lists them.
func checkPreview(t *testing.T, p *v1alpha1.DisruptionPreview, want []string) {
	t.Helper()
	if got := summary(p); !slices.Equal(got, want) {
		t.Errorf("preview\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// pods lists the preview's disruptions as "Restart rp-2".
func pods(p *v1alpha1.DisruptionPreview) []string {
	var out []string
	for _, d := range p.Disruptions {
		out = append(out, string(d.Action)+" "+d.Pod)
	}
	return out
}

// A new image restarts every broker, highest ordinal first, each named with its broker and the
// image from and to; with the controller leader unknown, a note says the order may change.
func TestPreviewOfANewTemplate(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1, 2)
	p := Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc))
	want := []string{
		"Restart rp-2 (102): image redpanda:v25.1.1 to redpanda:v25.1.2",
		"Restart rp-1 (101): image redpanda:v25.1.1 to redpanda:v25.1.2",
		"Restart rp-0 (100): image redpanda:v25.1.1 to redpanda:v25.1.2",
	}
	checkPreview(t, p, want)
	if p.ObservedGeneration != 7 || p.ControllerLeader != nil {
		t.Errorf("observedGeneration %d, controllerLeader %v; want 7 and none", p.ObservedGeneration, p.ControllerLeader)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "the controller leader is not known yet") {
		t.Errorf("notes %q: want one saying the controller leader is not known", p.Notes)
	}
}

// Known from health_overview, the controller leader's pod goes last, as the rollout takes it
// (LeaderLast); the preview keeps it while disruptions are pending, and a reconcile that did not
// read health_overview keeps that order.
func TestPreviewPutsTheControllerLeaderLast(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1, 2)
	p := Preview(c.bc, c.observe(nil, Health{Known: true, Controller: 102}), RecordedOf(c.bc))
	if got, want := pods(p), []string{"Restart rp-1", "Restart rp-0", "Restart rp-2"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if p.ControllerLeader == nil || *p.ControllerLeader != 102 || len(p.Notes) != 0 {
		t.Errorf("controllerLeader %v, notes %q; want 102 and none", p.ControllerLeader, p.Notes)
	}
	c.bc.Status.DisruptionPreview = p
	if again := Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc)); !slices.Equal(pods(again), pods(p)) || len(again.Notes) != 0 {
		t.Errorf("without health_overview: order %v, notes %q; want %v as last read", pods(again), again.Notes, pods(p))
	}
}

// A restart asked for on a pod goes before the outdated ones, and says who asked; the
// controller leader's pod asked for is not put off.
func TestPreviewPutsARequestedRestartFirst(t *testing.T) {
	c := newPreviewCluster(3, 3, 1, 2)
	c.pods[0].Annotations[brokerpod.AnnotationRestartRequested] = "kubectl drain node-a"
	p := Preview(c.bc, c.observe(nil, Health{Known: true, Controller: 100}), RecordedOf(c.bc))
	want := []string{
		"Restart rp-0 (100): a restart asked for on its pod (broker-operator.dev/restart-requested: kubectl drain node-a)",
		"Restart rp-2 (102): image redpanda:v25.1.1 to redpanda:v25.1.2",
		"Restart rp-1 (101): image redpanda:v25.1.1 to redpanda:v25.1.2",
	}
	checkPreview(t, p, want)
}

// A cluster property that takes effect on restart restarts the brokers that report it, and the
// reason names the property.
func TestPreviewNamesAPropertyNeedingARestart(t *testing.T) {
	c := newPreviewCluster(3, 3)
	c.bc.Status.ClusterConfig = &v1alpha1.ClusterConfigStatus{PendingRestart: []string{"log_segment_size"}, BrokersPendingRestart: []int32{101, 102}}
	p := Preview(c.bc, c.observe(RecordedConfigRestarts(c.bc), Health{Known: true, Controller: 100}), RecordedOf(c.bc))
	why := "cluster properties that take effect on restart: log_segment_size (its /v1/cluster_config/status says restart)"
	checkPreview(t, p, []string{"Restart rp-2 (102): " + why, "Restart rp-1 (101): " + why})
}

// A scale-down goes first, highest ordinal first; an outdated pod it removes is not restarted,
// and the restarts of the brokers that remain follow.
func TestPreviewOfAScaleDownThenRestarts(t *testing.T) {
	c := newPreviewCluster(5, 3, 0, 1, 2, 3, 4)
	p := Preview(c.bc, c.observe(nil, Health{Known: true, Controller: 101}), RecordedOf(c.bc))
	image := "image redpanda:v25.1.1 to redpanda:v25.1.2"
	want := []string{
		"Decommission rp-4 (104): scaling down from 5 to 3 brokers",
		"Decommission rp-3 (103): scaling down from 5 to 3 brokers",
		"Restart rp-2 (102): " + image,
		"Restart rp-0 (100): " + image,
		"Restart rp-1 (101): " + image,
	}
	checkPreview(t, p, want)

	// Once the decommission of broker 104 starts, it is under way, first.
	s := Step{Kind: StartDecommission, Broker: ptr.To(int32(104))}
	_, _, lc := Change(c.bc, s, c.observe(nil, Health{Known: true, Controller: 101}), false)
	if got := summary(lc.Preview); got[0] != "under way: "+want[0] || !slices.Equal(got[1:], want[1:]) {
		t.Errorf("after StartDecommission: %q", got)
	}
}

// The preview of a converged cluster is empty, with the generation it was made from.
func TestPreviewIsEmptyWhenConverged(t *testing.T) {
	c := newPreviewCluster(3, 3)
	c.bc.Status.DisruptionPreview = &v1alpha1.DisruptionPreview{ObservedGeneration: 6, ControllerLeader: ptr.To(int32(101)),
		Disruptions: []v1alpha1.PlannedDisruption{{Pod: "rp-0", Action: v1alpha1.DisruptionRestart, Reason: "old news"}}}
	p := Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc))
	if p.ObservedGeneration != 7 || p.Disruptions != nil || p.ControllerLeader != nil || p.Notes != nil {
		t.Errorf("converged: %+v, want generation 7 and nothing else", p)
	}
	// A scale-up disrupts nothing either.
	c.bc.Spec.Replicas = 5
	if p := Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc)); p.Disruptions != nil {
		t.Errorf("scale-up: %q", summary(p))
	}
}

// The preview agrees with the decisions: each StartRestart takes the preview's first restart,
// the status it writes shows that restart under way with the reason the preview gave, and the
// preview written when it finishes lists the rest in the same order.
func TestPreviewMatchesTheRolloutsDecisions(t *testing.T) {
	c := newPreviewCluster(4, 4, 0, 1, 2, 3)
	c.pods[1].Annotations[brokerpod.AnnotationRestartRequested] = "me"
	health := Health{Known: true, Controller: 103}
	first := Preview(c.bc, c.observe(nil, health), RecordedOf(c.bc))
	planned := pods(first)
	var taken []string
	for range 4 {
		o := c.observe(nil, health)
		// What brokers.Observe does: the leader last, Next the first of the order.
		o.Rollout.Order = LeaderLast(o.Rollout.Order, func(p PodAt) bool { return p.IDKnown && p.ID == 103 })
		n := o.Rollout.Order[0]
		o.Rollout.Next, o.Rollout.NextPod, o.Rollout.NextPodUID = Victim{Ordinal: n.Ordinal, ID: n.ID, IDKnown: true, Status: MemberActive}, n.Pod, n.UID
		s := Decide(o)
		if s.Kind != StartRestart {
			t.Fatalf("decided %s (%s), want StartRestart", s.Kind, s.Reason)
		}
		_, _, lc := Change(c.bc, s, o, true)
		under := lc.Preview.Disruptions[0]
		if !under.UnderWay || under.Pod != s.Restart.Pod || !strings.Contains(s.Reason, under.Reason) {
			t.Errorf("StartRestart %q; preview's first %+v", s.Reason, under)
		}
		taken = append(taken, "Restart "+s.Restart.Pod)
		// The restart finishes: the pod is made again from the new template, without the annotation.
		c.bc.Status.DisruptionPreview = lc.Preview
		p := c.pods[int(s.Restart.Ordinal)]
		p.Annotations[brokerpod.AnnotationTemplateHash] = "new"
		p.Spec.Containers[0].Image = c.bc.Spec.Image
		delete(p.Annotations, brokerpod.AnnotationRestartRequested)
		rest := Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc))
		if want := planned[len(taken):]; !slices.Equal(pods(rest), want) {
			t.Errorf("after restarting %s: preview %v, want %v", s.Restart.Pod, pods(rest), want)
		}
	}
	if !slices.Equal(taken, planned) {
		t.Errorf("restarted %v, the preview said %v", taken, planned)
	}
	if want := []string{"Restart rp-1", "Restart rp-2", "Restart rp-0", "Restart rp-3"}; !slices.Equal(planned, want) {
		t.Errorf("preview %v, want %v (asked for, then highest ordinal, the leader last)", planned, want)
	}
}

// An outdated pod that cannot start is replaced before any healthy broker restarts; a broker
// passed over for its restart's risk goes after the next one, and a note names it.
func TestPreviewOfStuckAndHeldPods(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1, 2)
	c.pods[0].Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "broker", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	c.pods[0].Status.Conditions = nil
	o := c.observe(nil, Health{Known: true, Controller: -1})
	p := Preview(c.bc, o, RecordedOf(c.bc))
	if got, want := pods(p), []string{"Restart rp-0", "Restart rp-2", "Restart rp-1"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if !strings.Contains(p.Disruptions[0].Reason, "so it is replaced before any healthy broker restarts") {
		t.Errorf("stuck pod's reason %q", p.Disruptions[0].Reason)
	}

	c = newPreviewCluster(3, 3, 0, 1, 2)
	o = c.observe(nil, Health{Known: true, Controller: -1})
	o.Rollout.Held, o.Rollout.NextPod = "pod rp-2, whose pre-restart probe reports 1 partition unavailable", "rp-1"
	p = Preview(c.bc, o, RecordedOf(c.bc))
	if got, want := pods(p), []string{"Restart rp-1", "Restart rp-2", "Restart rp-0"}; !slices.Equal(got, want) {
		t.Errorf("order with rp-2 passed over %v, want %v", got, want)
	}
	if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "passed over for now") && strings.Contains(n, "rp-2") }) {
		t.Errorf("notes %q do not name the broker passed over", p.Notes)
	}
}

// A restart under way stays first, with the reason the preview gave when it started, once its
// pod is gone.
func TestPreviewKeepsTheReasonOfARestartUnderWay(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1)
	c.bc.Status.Restart = &v1alpha1.BrokerRestart{Pod: "rp-2", Ordinal: 2, NodeID: 102, Step: v1alpha1.RestartRestarting, PodUID: "gone"}
	c.bc.Status.DisruptionPreview = &v1alpha1.DisruptionPreview{Disruptions: []v1alpha1.PlannedDisruption{
		{Pod: "rp-2", Ordinal: 2, Action: v1alpha1.DisruptionRestart, Reason: "image redpanda:v25.1.1 to redpanda:v25.1.2", UnderWay: true}}}
	p := Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc))
	image := "image redpanda:v25.1.1 to redpanda:v25.1.2"
	want := []string{"under way: Restart rp-2 (102): " + image, "Restart rp-1 (101): " + image, "Restart rp-0 (100): " + image}
	checkPreview(t, p, want)
}

// A paused cluster writes the preview of a spec changed while paused, and nothing else new; a
// spec with cluster properties gets a note that they are compared only once resumed.
func TestPausedStatusCarriesThePreview(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1, 2)
	c.bc.Annotations = map[string]string{AnnotationPaused: "true"}
	c.bc.Generation = 8
	c.bc.Spec.ClusterConfig = map[string]string{"log_segment_size": "1048576"}
	now := time.Now()
	p := Preview(c.bc, c.observe(RecordedConfigRestarts(c.bc), Health{}), RecordedOf(c.bc))
	st := PausedStatus(c.bc, p, now)
	if st.DisruptionPreview == nil || len(st.DisruptionPreview.Disruptions) != 3 || st.DisruptionPreview.ObservedGeneration != 8 || st.ObservedGeneration != 7 {
		t.Fatalf("paused status: preview %+v, observedGeneration %d", st.DisruptionPreview, st.ObservedGeneration)
	}
	if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "compared with the brokers only once resumed") }) {
		t.Errorf("notes %q: want one about the cluster properties", p.Notes)
	}
	c.bc.Status = st
	if again := PausedStatus(c.bc, p, now.Add(time.Minute)); StatusPatch(c.bc.Status, again, "") != nil {
		t.Errorf("paused again with the same preview: %s", StatusPatch(c.bc.Status, again, ""))
	}
	c.bc.Spec.Image = "redpanda:v25.1.3"
	c.bc.Generation = 9
	next := PausedStatus(c.bc, Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc)), now)
	var patch struct{ Status map[string]json.RawMessage }
	if err := json.Unmarshal(StatusPatch(c.bc.Status, next, ""), &patch); err != nil {
		t.Fatal(err)
	}
	if len(patch.Status) != 1 || !strings.Contains(string(patch.Status["disruptionPreview"]), "redpanda:v25.1.3") {
		t.Errorf("paused, the image changed again: patch %v, want the new preview alone", patch.Status)
	}
}

// withNext is o as brokers.Observe completes it for a rollout: the first pod of the order is the
// next to restart, an active member.
func withNext(o Observation) Observation {
	n := o.Rollout.Order[0]
	o.Rollout.Next, o.Rollout.NextPod, o.Rollout.NextPodUID = Victim{Ordinal: n.Ordinal, ID: n.ID, IDKnown: true, Status: MemberActive}, n.Pod, n.UID
	return o
}

// hasNote says whether one of p's notes holds every part.
func hasNote(p *v1alpha1.DisruptionPreview, parts ...string) bool {
	return slices.ContainsFunc(p.Notes, func(n string) bool {
		return !slices.ContainsFunc(parts, func(part string) bool { return !strings.Contains(n, part) })
	})
}

// A change of version Redpanda does not support holds the rollout (HoldVersionChange): the
// preview lists no restart, and a note says why, as the hold's event does.
func TestPreviewOfAHeldChangeOfVersionListsNoRestart(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1, 2)
	for _, p := range c.pods {
		p.Spec.Containers[0].Image = "redpanda:v24.2.4"
	}
	o := withNext(c.observe(nil, Health{Known: true, Controller: 101}))
	if s := Decide(o); s.Kind != HoldVersionChange {
		t.Fatalf("decided %s (%s), want HoldVersionChange", s.Kind, s.Reason)
	}
	p := Preview(c.bc, o, RecordedOf(c.bc))
	checkPreview(t, p, nil)
	refused := o.Rollout.Upgrade.Check().Refused
	if !hasNote(p, "the change of version is held", refused) {
		t.Errorf("notes %q: want the hold's reason %q", p.Notes, refused)
	}

	// A supported one (v24.2 to v24.3) lists every broker.
	c.bc.Spec.Image = "redpanda:v24.3.1"
	o = withNext(c.observe(nil, Health{Known: true, Controller: 101}))
	if s := Decide(o); s.Kind != StartRestart {
		t.Fatalf("decided %s (%s), want StartRestart", s.Kind, s.Reason)
	}
	if p := Preview(c.bc, o, RecordedOf(c.bc)); len(p.Disruptions) != 3 || hasNote(p, "held") {
		t.Errorf("supported upgrade: %q, notes %q", summary(p), p.Notes)
	}
}

// A scale-down that the pre-flight holds (HoldScaleDown) lists none of its brokers, and a note
// says why; on a paused cluster, which asks the brokers nothing, a note says the pre-flight is
// still to come.
func TestPreviewOfAHeldScaleDownListsNoDecommission(t *testing.T) {
	c := newPreviewCluster(3, 2)
	o := c.observe(nil, Health{Known: true, Controller: 100})
	o.Victim = Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}
	o.Placement = Placement{Asked: true, Target: 2, Partitions: []PartitionReplicas{{Topic: "kafka/orders", Replicas: []int32{100, 101, 102}}}}
	if s := Decide(o); s.Kind != HoldScaleDown {
		t.Fatalf("decided %s (%s), want HoldScaleDown", s.Kind, s.Reason)
	}
	p := Preview(c.bc, o, RecordedOf(c.bc))
	checkPreview(t, p, nil)
	if !hasNote(p, "the scale-down is held", "kafka/orders") {
		t.Errorf("notes %q: want the held scale-down naming the topic", p.Notes)
	}

	c.bc.Annotations = map[string]string{AnnotationPaused: "true"}
	p = Preview(c.bc, c.observe(nil, Health{}), RecordedOf(c.bc))
	checkPreview(t, p, []string{"Decommission rp-2 (102): scaling down from 3 to 2 brokers"})
	if !hasNote(p, "pre-flight", "only once resumed") {
		t.Errorf("paused scale-down: notes %q, want one about the pre-flight", p.Notes)
	}
}

// Outside every maintenance window the rollout waits (WaitForMaintenanceWindow): the preview
// still lists the order, and a note names when the next window opens; an unreadable window
// holds everything, and the note says so.
func TestPreviewSaysWhenTheNextWindowOpens(t *testing.T) {
	c := newPreviewCluster(3, 3, 0, 1, 2)
	next := time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)
	o := withNext(c.observe(nil, Health{Known: true, Controller: 101}))
	o.Window = Window{Configured: true, Next: next}
	if s := Decide(o); s.Kind != WaitForMaintenanceWindow {
		t.Fatalf("decided %s (%s), want WaitForMaintenanceWindow", s.Kind, s.Reason)
	}
	p := Preview(c.bc, o, RecordedOf(c.bc))
	if len(p.Disruptions) != 3 || !hasNote(p, "no maintenance window is open", "2026-12-06T01:00:00Z") {
		t.Errorf("outside a window: %q, notes %q", summary(p), p.Notes)
	}

	o.Window = Window{Configured: true, Inside: true}
	if p := Preview(c.bc, o, RecordedOf(c.bc)); hasNote(p, "window") {
		t.Errorf("inside a window: notes %q, want none about windows", p.Notes)
	}
	o.Window = Window{Configured: true, Invalid: `spec.maintenanceWindows[0].timeZone "Mars/Olympus" is not a time zone the operator knows`}
	if p := Preview(c.bc, o, RecordedOf(c.bc)); !hasNote(p, "nothing listed starts", "Mars/Olympus") {
		t.Errorf("unreadable window: notes %q", p.Notes)
	}
}
