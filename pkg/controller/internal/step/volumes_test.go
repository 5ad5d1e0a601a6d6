package step

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/wordstest"
)

var volumesNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func q(s string) resource.Quantity { return resource.MustParse(s) }

// grown is a claim of ordinal o in class, asking for request, with capacity.
func grown(o int32, class, request, capacity string) VolumeClaim {
	c := VolumeClaim{Name: fmt.Sprintf("datadir-rp-%d", o), Ordinal: o, Class: class, Request: q(request),
		Bound: true, Pod: true, PodCreated: volumesNow.Add(-time.Hour)}
	if capacity != "" {
		c.Capacity = new(q(capacity))
	}
	return c
}

func names(cs []VolumeClaim) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestEveryClaimGrowsAtOnceWhenEveryClassAllowsIt(t *testing.T) {
	p := PlanVolumes(Volumes{Size: q("2Gi"), Template: q("1Gi"), Now: volumesNow,
		Claims:  []VolumeClaim{grown(2, "a", "1Gi", "1Gi"), grown(0, "a", "1Gi", "1Gi"), grown(1, "b", "2Gi", "1Gi")},
		Classes: map[string]ClassVerdict{"a": {Allows: true}, "b": {Allows: true}}})
	wordstest.Check(t, "StorageResized", p.Condition.Message)
	if !p.Allowed || p.Done {
		t.Fatalf("plan %+v", p)
	}
	if got := strings.Join(names(p.Grow), ","); got != "datadir-rp-0,datadir-rp-2" {
		t.Errorf("grow %s, want the two claims that ask for less, in ordinal order", got)
	}
	for _, c := range p.Status.Claims {
		if c.State != v1alpha1.ClaimResizing {
			t.Errorf("claim %s state %s, want Resizing", c.Claim, c.State)
		}
	}
	if p.Condition.Reason != ReasonStorageResizing || p.Condition.Status != metav1.ConditionFalse || !strings.Contains(p.Condition.Message, "claim template still asks for 1Gi") {
		t.Errorf("condition %+v", p.Condition)
	}
}

// One claim whose class refuses, or that has no class, and no claim grows: nothing half-done.
func TestOneClassThatRefusesHoldsEveryClaim(t *testing.T) {
	for name, tc := range map[string]struct {
		claim VolumeClaim
		want  string
	}{
		"no expansion": {grown(1, "fixed", "1Gi", "1Gi"), `StorageClass "fixed" does not allow volume expansion`},
		"no class":     {grown(1, "", "1Gi", "1Gi"), "volume claim datadir-rp-1 has no StorageClass"},
		"missing":      {grown(1, "gone", "1Gi", "1Gi"), `StorageClass "gone" does not exist`},
		"not read":     {grown(1, "other", "1Gi", "1Gi"), `StorageClass "other" of volume claim datadir-rp-1 was not read`},
	} {
		t.Run(name, func(t *testing.T) {
			p := PlanVolumes(Volumes{Size: q("2Gi"), Template: q("1Gi"), Now: volumesNow,
				Claims: []VolumeClaim{grown(0, "a", "1Gi", "1Gi"), tc.claim},
				Classes: map[string]ClassVerdict{"a": {Allows: true},
					"fixed": {Why: "does not allow volume expansion (allowVolumeExpansion is not true)"}, "gone": {Why: "does not exist"}}})
			wordstest.Check(t, "StorageResized", p.Condition.Message)
			if p.Allowed || len(p.Grow) != 0 || len(p.Restart) != 0 {
				t.Fatalf("plan %+v, want nothing grown", p)
			}
			c := p.Condition
			if c.Reason != ReasonStorageExpansionNotAllowed || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, tc.want) || !strings.Contains(c.Message, "no volume claim was changed") {
				t.Errorf("condition %+v, want it to say %q", c, tc.want)
			}
			for _, g := range p.Status.Claims {
				if g.State != v1alpha1.ClaimPending {
					t.Errorf("claim %s state %s, want Pending", g.Claim, g.State)
				}
			}
		})
	}
}

// A claim whose file system waits for a restart gets its pod's restart asked for once the grace
// has passed, and only if the pod predates the wait and is not asked already.
func TestAFileSystemResizePendingRestartsThePodThatPredatesIt(t *testing.T) {
	since := volumesNow.Add(-ResizeRestartGrace)
	pending := func(mod func(*VolumeClaim)) VolumeClaim {
		c := grown(1, "a", "2Gi", "1Gi")
		c.ResizePendingSince = since
		mod(&c)
		return c
	}
	for name, tc := range map[string]struct {
		claim   VolumeClaim
		restart bool
	}{
		"due":              {pending(func(*VolumeClaim) {}), true},
		"within the grace": {pending(func(c *VolumeClaim) { c.ResizePendingSince = volumesNow.Add(-time.Second) }), false},
		"pod made since":   {pending(func(c *VolumeClaim) { c.PodCreated = since.Add(time.Second) }), false},
		// Whole seconds both: the pod may have mounted before the condition; past the grace,
		// the condition still there says its mount did not resize the file system.
		"made the same second": {pending(func(c *VolumeClaim) { c.PodCreated = since }), true},
		"asked already":        {pending(func(c *VolumeClaim) { c.RestartRequested = true }), false},
		"no pod":               {pending(func(c *VolumeClaim) { c.Pod = false }), false},
	} {
		t.Run(name, func(t *testing.T) {
			p := PlanVolumes(Volumes{Size: q("2Gi"), Template: q("2Gi"), Now: volumesNow,
				Claims: []VolumeClaim{grown(0, "a", "2Gi", "2Gi"), tc.claim}, Classes: map[string]ClassVerdict{"a": {Allows: true}}})
			wordstest.Check(t, "StorageResized", p.Condition.Message)
			if got := len(p.Restart) == 1; got != tc.restart {
				t.Errorf("restart %v, want %v", names(p.Restart), tc.restart)
			}
			if p.Status.Claims[1].State != v1alpha1.ClaimFileSystemResizePending || !strings.Contains(p.Condition.Message, "datadir-rp-1 wait for their pods to restart") {
				t.Errorf("status %+v, condition %q", p.Status.Claims[1], p.Condition.Message)
			}
		})
	}
}

// kube-apiserver refuses to expand a claim that is not Bound: it waits, and the others grow.
func TestAnUnboundClaimWaitsToGrow(t *testing.T) {
	unbound := grown(1, "a", "1Gi", "")
	unbound.Bound = false
	p := PlanVolumes(Volumes{Size: q("2Gi"), Template: q("2Gi"), Now: volumesNow,
		Claims: []VolumeClaim{grown(0, "a", "1Gi", "1Gi"), unbound}, Classes: map[string]ClassVerdict{"a": {Allows: true}}})
	wordstest.Check(t, "StorageResized", p.Condition.Message)
	if got := names(p.Grow); len(got) != 1 || got[0] != "datadir-rp-0" {
		t.Errorf("grow %v, want only the bound claim", got)
	}
	if p.Status.Claims[1].State != v1alpha1.ClaimPending || p.Done {
		t.Errorf("unbound claim %+v, done %v", p.Status.Claims[1], p.Done)
	}
}

func TestAGrowthIsDoneWhenEveryCapacityAndTheTemplateHaveTheSize(t *testing.T) {
	v := Volumes{Size: q("2Gi"), Template: q("2Gi"), Now: volumesNow,
		Claims: []VolumeClaim{grown(0, "a", "2Gi", "2Gi"), grown(1, "a", "2Gi", "2048Mi")}, Classes: map[string]ClassVerdict{"a": {Allows: true}}}
	p := PlanVolumes(v)
	if !p.Done || p.Condition.Status != metav1.ConditionTrue || p.Condition.Reason != ReasonStorageResized {
		t.Fatalf("plan %+v, want done", p)
	}
	v.Template = q("1Gi")
	if p := PlanVolumes(v); p.Done {
		t.Errorf("done while the claim template asks for 1Gi")
	}
}

func TestOnlyAGrowthReadsTheClaims(t *testing.T) {
	done := &v1alpha1.StorageStatus{Size: q("2Gi"), Claims: []v1alpha1.ClaimGrowth{{Claim: "c", State: v1alpha1.ClaimResized}}}
	resizing := &v1alpha1.StorageStatus{Size: q("2Gi"), Claims: []v1alpha1.ClaimGrowth{{Claim: "c", State: v1alpha1.ClaimResizing}}}
	for _, tc := range []struct {
		name           string
		size, template string
		st             *v1alpha1.StorageStatus
		want           bool
		current        int32
	}{
		{"a new cluster", "1Gi", "1Gi", nil, false, 1},
		{"the spec grew", "2Gi", "1Gi", nil, true, 1},
		{"a growth finished", "2Gi", "2Gi", done, false, 1},
		{"a growth under way", "2Gi", "2Gi", resizing, true, 1},
		{"another growth", "3Gi", "3Gi", done, true, 1},
		{"the same size written otherwise", "2048Mi", "2048Mi", done, false, 1},
		{"a scale-up after a growth", "2Gi", "2Gi", done, true, 2},
	} {
		if got := NeedsVolumeGrowth(q(tc.size), q(tc.template), tc.st, tc.current); got != tc.want {
			t.Errorf("%s: NeedsVolumeGrowth = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A claim kube-apiserver refuses to expand leaves the claims not asked yet Pending, the claim
// template as it is, and StorageResized naming the claim and the answer.
func TestARefusedClaimHoldsTheRest(t *testing.T) {
	for _, tc := range []struct {
		asked  int
		states string
		none   bool
	}{{0, "[Pending Pending Pending]", true}, {1, "[Resizing Pending Pending]", false}} {
		p := PlanVolumes(Volumes{Size: q("2Gi"), Template: q("1Gi"), Now: volumesNow,
			Claims:  []VolumeClaim{grown(0, "a", "1Gi", "1Gi"), grown(1, "a", "1Gi", "1Gi"), grown(2, "a", "1Gi", "1Gi")},
			Classes: map[string]ClassVerdict{"a": {Allows: true}}})
		wordstest.Check(t, "StorageResized", p.Condition.Message)
		p.Refused("datadir-rp-1", "forbidden: only dynamically provisioned pvc can be resized", tc.asked)
		wordstest.Check(t, "StorageResized", p.Condition.Message)
		if p.Allowed || p.Done || len(p.Grow) != tc.asked {
			t.Fatalf("asked %d: plan %+v", tc.asked, p)
		}
		var states []v1alpha1.ClaimGrowthState
		for _, c := range p.Status.Claims {
			states = append(states, c.State)
		}
		if fmt.Sprint(states) != tc.states {
			t.Errorf("asked %d: states %v, want %s", tc.asked, states, tc.states)
		}
		c := p.Condition
		if c.Reason != ReasonStorageExpansionRefused || !strings.Contains(c.Message, "datadir-rp-1: forbidden") ||
			strings.Contains(c.Message, "no volume claim was changed") != tc.none {
			t.Errorf("asked %d: condition %+v", tc.asked, c)
		}
	}
}
