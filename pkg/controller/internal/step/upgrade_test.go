package step

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/wordstest"
)

func TestParseVersionAndImageTag(t *testing.T) {
	for s, want := range map[string]string{
		"v24.2.4": "v24.2.4", "24.2.4": "v24.2.4", "v24.2.4 - 1a2b3c4d": "v24.2.4", "v25.1.1-rc3": "v25.1.1",
		"latest": "", "2": "", "v24.2": "", "": "", "v24.x.1": "",
	} {
		v, ok := ParseVersion(s)
		if got := map[bool]string{true: v.String(), false: ""}[ok]; got != want {
			t.Errorf("ParseVersion(%q) = %q, want %q", s, got, want)
		}
	}
	for image, want := range map[string]string{
		"docker.redpanda.com/redpandadata/redpanda:v24.2.4": "v24.2.4",
		"redpanda:v24.3.1@sha256:0123456789abcdef":          "v24.3.1",
		"redpanda@sha256:0123456789abcdef":                  "",
		"registry.local:5000/redpanda":                      "",
		"registry.local:5000/redpanda:stable":               "stable",
	} {
		if got := ImageTag(image); got != want {
			t.Errorf("ImageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

// on is a broker on an outdated pod running image; current one on the template's image.
func on(ordinal int32, image string) BrokerVersion {
	return BrokerVersion{Ordinal: ordinal, Pod: "rp-" + string(rune('0'+ordinal)), Image: image, ID: 100 + ordinal, IDKnown: true}
}

func current(b BrokerVersion) BrokerVersion { b.Current = true; return b }

func TestUpgradePathRules(t *testing.T) {
	const r = "redpanda:"
	still := Features{Asked: true, Pod: "rp-0", ClusterVersion: 13, NodeLatest: 13}
	moved := Features{Asked: true, Pod: "rp-0", ClusterVersion: 14, NodeLatest: 13}
	tests := []struct {
		name    string
		u       Upgrade
		refused []string // phrases the refusal names; nil: allowed
		rolls   bool     // a rollback
		unknown bool     // not checked
	}{
		{"a patch up", Upgrade{Image: r + "v24.2.5", Brokers: []BrokerVersion{on(0, r+"v24.2.4")}}, nil, false, false},
		{"a patch down", Upgrade{Image: r + "v24.2.3", Brokers: []BrokerVersion{on(0, r+"v24.2.4")}}, nil, false, false},
		{"the next feature release", Upgrade{Image: r + "v24.3.1", Brokers: []BrokerVersion{on(0, r+"v24.2.4")}}, nil, false, false},
		{"the first release of the next year", Upgrade{Image: r + "v25.1.1", Brokers: []BrokerVersion{on(0, r+"v24.3.6")}}, nil, false, false},
		{"a skipped release across years", Upgrade{Image: r + "v25.1.1", Brokers: []BrokerVersion{on(0, r+"v24.2.4")}},
			[]string{"v24.2.4", "v25.1.1", "one feature release at a time", "v24.3 image first", "broker 100 (pod rp-0)"}, false, false},
		{"a skipped release within a year", Upgrade{Image: r + "v24.3.1", Brokers: []BrokerVersion{on(0, r+"v24.1.2")}},
			[]string{"v24.1.2", "v24.3.1", "v24.2 image first"}, false, false},
		{"a downgrade to an older release", Upgrade{Image: r + "v24.2.4", Brokers: []BrokerVersion{on(1, r+"v24.3.1"), on(0, r+"v24.3.1")}},
			[]string{"v24.3.1", "v24.2.4", "only between patches of one feature release", "none runs v24.2"}, false, false},
		{"a rollback while a broker still runs the original", Upgrade{Image: r + "v24.2.4",
			Brokers: []BrokerVersion{on(1, r+"v24.3.1"), current(on(0, r+"v24.2.4"))}, Features: still}, nil, true, false},
		{"a rollback once the active version moved", Upgrade{Image: r + "v24.2.4",
			Brokers: []BrokerVersion{on(1, r+"v24.3.1"), current(on(0, r+"v24.2.4"))}, Features: moved},
			[]string{"v24.3.1", "v24.2.4", "active logical version is 14, past 13", "no longer possible"}, true, false},
		{"a rollback whose active version is not known", Upgrade{Image: r + "v24.2.4",
			Brokers: []BrokerVersion{on(1, r+"v24.3.1"), current(on(0, r+"v24.2.4"))}, Features: Features{Asked: true, Pod: "rp-0", Problem: "503"}},
			[]string{"cannot tell whether the cluster's active version has moved on", "503"}, true, false},
		{"an old pod on a custom tag reports its version", Upgrade{Image: r + "v25.1.1",
			Brokers: []BrokerVersion{{Pod: "rp-0", Image: r + "stable", Reported: "v24.2.4 - abc", IDKnown: true, ID: 100}}},
			[]string{"v24.2.4", "v25.1.1"}, false, false},
		{"a digest is known once a broker runs it", Upgrade{Image: "redpanda@sha256:beef",
			Brokers: []BrokerVersion{on(1, r+"v24.2.4"), {Ordinal: 0, Pod: "rp-0", Image: "redpanda@sha256:beef", Current: true, Reported: "v25.1.1 - abc"}}},
			[]string{"v24.2.4", "v25.1.1", "on image redpanda@sha256:beef already, reports"}, false, false},
		{"a digest no broker runs yet", Upgrade{Image: "redpanda@sha256:beef", Brokers: []BrokerVersion{on(0, r+"v24.2.4")}}, nil, false, true},
		{"no old broker's version is known", Upgrade{Image: r + "v25.1.1", Brokers: []BrokerVersion{on(0, r+"stable")}}, nil, false, true},
		{"no change of image", Upgrade{Image: r + "v25.1.1", Brokers: []BrokerVersion{on(0, r+"v25.1.1")}}, nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.u.Check()
			if (v.Refused != "") != (tt.refused != nil) {
				t.Fatalf("refused = %q, want refused: %t", v.Refused, tt.refused != nil)
			}
			for _, p := range tt.refused {
				if !strings.Contains(v.Refused, p) {
					t.Errorf("refusal %q does not name %q", v.Refused, p)
				}
			}
			if v.Refused != "" {
				wordstest.Check(t, "refusal", v.Refused)
			}
			if v.Rollback != tt.rolls || (v.Unchecked != "") != tt.unknown {
				t.Errorf("verdict %+v: want rollback %t, unchecked %t", v, tt.rolls, tt.unknown)
			}
		})
	}
}

// A change of version off the path holds the rollout before anything restarts, a stuck pod
// included; the Degraded condition names both versions and the rule, one Warning event tells
// it, and a spec.image on the path ends the hold by itself.
func TestASkippedReleaseHoldsTheRolloutBeforeAnyRestart(t *testing.T) {
	skip := Upgrade{Image: "redpanda:v25.1.1", Brokers: []BrokerVersion{on(2, "redpanda:v24.2.4"), on(1, "redpanda:v24.2.4"), on(0, "redpanda:v24.2.4")}}
	o := Observation{Cluster: "rp", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Outdated: 3, AllReady: true,
		Next: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}, NextPod: "rp-2", NextPodUID: "u2", Upgrade: skip,
		Stuck: []StuckPod{{Ordinal: 2, Pod: "rp-2", Outdated: true, Why: "ImagePullBackOff"}}}}
	s := Decide(o)
	if s.Kind != HoldVersionChange {
		t.Fatalf("decide = %s, want %s", s.Kind, HoldVersionChange)
	}
	bc := &v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{Replicas: 3}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3}}
	st := NextStatus(bc, s, Write{Current: 3}, time.Now())
	d := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if d == nil || d.Reason != ReasonUnsupportedVersionChange || !strings.Contains(d.Message, "v24.2.4") || !strings.Contains(d.Message, "v25.1.1") ||
		!strings.Contains(d.Message, "one feature release at a time") {
		t.Fatalf("Degraded = %+v; want %s naming both versions and the rule", d, ReasonUnsupportedVersionChange)
	}
	events := Events(s, &bc.Status, &st)
	if len(events) != 1 || events[0].Type != corev1.EventTypeWarning || events[0].Reason != string(HoldVersionChange) {
		t.Fatalf("events = %+v, want one Warning", events)
	}
	if again := Events(s, &st, &st); len(again) != 0 {
		t.Errorf("the same hold polled again: %+v, want no event", again)
	}
	o.Rollout.Upgrade.Image = "redpanda:v24.3.1"
	s2 := Decide(o)
	if s2.Kind != ReplaceStuckPod {
		t.Fatalf("spec.image on the path: decide = %s, want the rollout to go on (%s)", s2.Kind, ReplaceStuckPod)
	}
	o.Rollout.Stuck = nil
	s2 = Decide(o)
	after := NextStatus(&v1alpha1.BrokerCluster{Spec: bc.Spec, Status: st}, s2, Write{Current: 3, Lifecycle: Lifecycle{Restart: s2.Restart}}, time.Now())
	ended := Events(s2, &st, &after)
	if s2.Kind != StartRestart || len(ended) != 2 || ended[0].Reason != string(HoldVersionChange) || ended[0].Type != corev1.EventTypeNormal {
		t.Fatalf("decide = %s, events %+v; want %s after a Normal event that the hold ended", s2.Kind, ended, StartRestart)
	}
}

// A restart under way whose version is no longer on the path is suspended while its maintenance
// mode is on, then held; every step that restarts a broker relies on the path afresh.
func TestARestartUnderWayIsHeldOffThePath(t *testing.T) {
	r := &v1alpha1.BrokerRestart{Pod: "rp-2", Ordinal: 2, NodeID: 102, Step: v1alpha1.RestartDraining, PodUID: "u2"}
	o := Observation{Cluster: "rp", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Restart: r, PodReady: true, OthersUp: true,
		Maintenance: MaintenanceDrained, Upgrade: Upgrade{Image: "redpanda:v25.1.1", Brokers: []BrokerVersion{on(2, "redpanda:v24.2.4")}}}}
	if s := Decide(o); s.Kind != SuspendRestart || !strings.Contains(s.Reason, "skips a feature release") {
		t.Fatalf("maintenance on: decide = %s (%q), want %s naming the rule", s.Kind, s.Reason, SuspendRestart)
	}
	o.Rollout.Maintenance = MaintenanceOff
	if s := Decide(o); s.Kind != HoldVersionChange {
		t.Fatalf("maintenance off: decide = %s, want %s", s.Kind, HoldVersionChange)
	}
	for _, k := range []Kind{StartRestart, RestartSingleBroker, EnableMaintenance, RestartPod, DeletePod, ReplaceStuckPod} {
		if !slices.Contains(Rows[k].Facts, FactSupportedVersion) {
			t.Errorf("%s restarts a broker without checking the version path afresh", k)
		}
	}
	if WaitFor(FactSupportedVersion) != HoldVersionChange || WaitFor(FactOthersUp) != WaitForHealthyCluster {
		t.Error("a fresh check that finds the path broken must hold the rollout")
	}
}

// A digest the brokers have not run yet cannot be checked: the restart goes ahead and says so.
func TestAnUncheckedVersionIsSaid(t *testing.T) {
	o := Observation{Cluster: "rp", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Outdated: 3, AllReady: true,
		Next: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}, NextPod: "rp-2", NextPodUID: "u2",
		Upgrade: Upgrade{Image: "redpanda@sha256:beef", Brokers: []BrokerVersion{on(2, "redpanda:v24.2.4")}}}}
	s := Decide(o)
	if s.Kind != StartRestart || !strings.Contains(s.Reason, "the upgrade path is not checked") {
		t.Fatalf("decide = %s (%q), want %s saying the path is not checked", s.Kind, s.Reason, StartRestart)
	}
}
