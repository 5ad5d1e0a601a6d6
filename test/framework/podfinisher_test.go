package framework

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestWriteKwokStagesDropsOnlyThePodDeleteStage(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "stages.yaml")
	in := "# generated\n---\napiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-ready\nspec: {}\n" +
		"---\napiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-delete\nspec:\n  next:\n    delete: true\n" +
		"---\napiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-complete\nspec: {}\n"
	if err := os.WriteFile(src, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := writeKwokStages(dir, src)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); strings.Contains(s, "pod-delete") || !strings.Contains(s, "pod-ready") || !strings.Contains(s, "pod-complete") {
		t.Errorf("stages written:\n%s", s)
	}
}

// The finisher deletes a pod that is being deleted with grace 0 and the pod's UID as a
// precondition, as a kubelet does, and leaves a pod that is not being deleted alone.
func TestPodFinisherDeletesWithTheUIDPrecondition(t *testing.T) {
	now := metav1.Now()
	deleting := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "bc-0", UID: "old", DeletionTimestamp: &now, Finalizers: []string{"x"}}, Spec: corev1.PodSpec{NodeName: FakeNodeName}}
	running := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "bc-1", UID: "u1"}, Spec: corev1.PodSpec{NodeName: FakeNodeName}}
	client := fake.NewClientset(deleting, running)
	deletes := make(chan metav1.DeleteOptions, 10)
	client.PrependReactor("delete", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		d := action.(k8stesting.DeleteActionImpl)
		if d.Name != "bc-0" {
			t.Errorf("deleted %s, which is not being deleted", d.Name)
		}
		deletes <- d.DeleteOptions
		return true, nil, nil
	})
	f, err := startPodFinisher(client, nil, FakeNodeName)
	if err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	select {
	case opts := <-deletes:
		if opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds != 0 || opts.Preconditions == nil ||
			opts.Preconditions.UID == nil || *opts.Preconditions.UID != "old" {
			t.Errorf("delete options %+v, want grace 0 and the UID precondition old", opts)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the finisher did not delete the pod being deleted")
	}
}

// A finisher of several nodes finishes the deletes of pods on any of them, and leaves the pods of
// other nodes (the real node's, which its kubelet finishes) alone.
func TestPodFinisherOfSeveralNodesKeepsToThem(t *testing.T) {
	now := metav1.Now()
	nodes := FakeNodeNames(3)
	deleting := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, UID: types.UID("u-" + name), DeletionTimestamp: &now, Finalizers: []string{"x"}},
			Spec: corev1.PodSpec{NodeName: node}}
	}
	client := fake.NewClientset(deleting("real", RealNodeName), deleting("bc-0", nodes[0]), deleting("bc-2", nodes[2]))
	deleted := make(chan string, 10)
	client.PrependReactor("delete", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		deleted <- action.(k8stesting.DeleteActionImpl).Name
		return true, nil, nil
	})
	f, err := startPodFinisher(client, nil, nodes...)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case name := <-deleted:
			got[name] = true
		case <-time.After(30 * time.Second):
			t.Fatalf("the finisher deleted %v, want bc-0 and bc-2", got)
		}
	}
	f.stop()
	close(deleted)
	for name := range deleted {
		got[name] = true
	}
	if !got["bc-0"] || !got["bc-2"] || got["real"] {
		t.Errorf("the finisher deleted %v, want bc-0 and bc-2 and not the real node's pod", got)
	}
}

// With Options.PodStop, a pod is deleted only once its stop has taken the time PodStop gives it:
// a pod stopping at once is finished while one that takes an hour is not.
func TestPodFinisherWaitsForEachPodToStop(t *testing.T) {
	now := metav1.Now()
	deleting := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, UID: types.UID("u-" + name), DeletionTimestamp: &now, Finalizers: []string{"x"}},
			Spec: corev1.PodSpec{NodeName: FakeNodeName}}
	}
	client := fake.NewClientset(deleting("slow"), deleting("fast"))
	deleted := make(chan string, 10)
	client.PrependReactor("delete", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		deleted <- action.(k8stesting.DeleteActionImpl).Name
		return true, nil, nil
	})
	asked := make(chan string, 10)
	stop := func(p *corev1.Pod) time.Duration {
		asked <- p.Name
		if p.Name == "slow" {
			return time.Hour
		}
		return 0
	}
	f, err := startPodFinisher(client, stop, FakeNodeName)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case name := <-deleted:
		if name != "fast" {
			t.Errorf("deleted %s first, want fast", name)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the finisher did not delete the pod that stops at once")
	}
	f.stop()
	close(deleted)
	for name := range deleted {
		t.Errorf("deleted %s, whose stop takes an hour", name)
	}
	close(asked)
	seen := map[string]bool{}
	for name := range asked {
		seen[name] = true
	}
	if !seen["slow"] || !seen["fast"] {
		t.Errorf("PodStop asked for %v, want both pods", seen)
	}
}

// The fake Nodes are in the zones in turn, and all match FakeNodeSelector.
func TestFakeNodesSpreadOverZones(t *testing.T) {
	var zones []string
	for i, name := range FakeNodeNames(4) {
		n := fakeNode(i)
		if n.Name != name || n.Labels[corev1.LabelHostname] != name {
			t.Errorf("fake node %d is %s (hostname %s), want %s", i, n.Name, n.Labels[corev1.LabelHostname], name)
		}
		for k, v := range FakeNodeSelector() {
			if n.Labels[k] != v {
				t.Errorf("fake node %s does not match FakeNodeSelector", name)
			}
		}
		zones = append(zones, n.Labels[corev1.LabelTopologyZone])
	}
	if want := []string{"zone-a", "zone-b", "zone-c", "zone-a"}; strings.Join(zones, ",") != strings.Join(want, ",") {
		t.Errorf("zones %v, want %v", zones, want)
	}
}
