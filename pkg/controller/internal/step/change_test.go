package step

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A restart's event and the Restarting condition name the change it applies: the image from and
// to, the template's fields, the cluster properties that wait for a restart.
func TestARestartNamesTheChangeItApplies(t *testing.T) {
	o := Observation{Cluster: "rp", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Outdated: 2, AllReady: true,
		Next: Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}, NextPod: "rp-2", NextPodUID: "u2",
		Upgrade: Upgrade{Image: "redpanda:v25.1.2"},
		Order: []PodAt{
			{Ordinal: 2, Pod: "rp-2", UID: "u2", Image: "redpanda:v25.1.1", Template: true, Fields: []string{"container broker resources"}, Config: true},
			{Ordinal: 1, Pod: "rp-1", UID: "u1", Image: "redpanda:v25.1.2", Template: true},
		}}}
	s := Decide(o)
	for _, want := range []string{"image redpanda:v25.1.1 to redpanda:v25.1.2", "pod template fields container broker resources", "cluster properties that take effect on restart"} {
		if !strings.Contains(s.Reason, want) {
			t.Errorf("StartRestart reason %q does not name %q", s.Reason, want)
		}
	}
	bc := &v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{Replicas: 3}, Status: v1alpha1.BrokerClusterStatus{CurrentReplicas: 3}}
	current, decommissioning, lc := Change(bc, s, o, false)
	st := NextStatus(bc, s, Write{Current: current, Decommissioning: decommissioning, Lifecycle: lc}, time.Now())
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionRestarting); c == nil || !strings.Contains(c.Message, "image redpanda:v25.1.1 to redpanda:v25.1.2") {
		t.Errorf("Restarting condition %+v does not name the image change", c)
	}
	o.Rollout.Next, o.Rollout.NextPod = Victim{Ordinal: 1, ID: 101, IDKnown: true, Status: MemberActive}, "rp-1"
	o.Rollout.Order = o.Rollout.Order[1:]
	if s := Decide(o); !strings.Contains(s.Reason, "(a new pod template)") {
		t.Errorf("a template change the comparison cannot name: %q", s.Reason)
	}
}
