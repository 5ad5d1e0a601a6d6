package step

import (
	"testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Composing a preview from pools' previews is a fixed point: a restart under way keeps the
// reason the last preview gave it, pool named once, so that a reconcile that changes nothing
// writes nothing (a reason that grew each time made every reconcile write status, and each write
// bring the next reconcile).
func TestComposePoolsPreviewNamesThePoolOnce(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{}
	pool := func(reason string) []PoolPreview {
		return []PoolPreview{{Pool: "blue", Preview: &v1alpha1.DisruptionPreview{Disruptions: []v1alpha1.PlannedDisruption{
			{Pod: "c-blue-0", Action: v1alpha1.DisruptionRestart, Reason: reason, UnderWay: true}}}}}
	}
	first := ComposePoolsPreview(bc, pool("pod template fields annotations"))
	again := ComposePoolsPreview(bc, pool(first.Disruptions[0].Reason))
	if got, want := again.Disruptions[0].Reason, "pool blue: pod template fields annotations"; got != want {
		t.Errorf("reason %q after a second composition, want %q", got, want)
	}
}
