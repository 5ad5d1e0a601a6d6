package brokers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// The fresh check of FactSupportedVersion reads the brokers' reports afresh and, for a rollback
// alone, asks GET /v1/features of a broker still on the original release, and only that broker.
func TestTheVersionFactAsksTheOriginalBrokerForARollback(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{Version: "v24.2.4"})
	defer sim.Close()
	cluster := sim.Cluster(testNamespace, testName)
	ids := map[int32]int32{}
	for o := range 3 {
		ids[int32(o)] = int32(cluster.Join(o))
	}
	client, err := admin.NewClient(cluster.Config(3))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	restart := func(ordinal int, version string) {
		cluster.SetPodVersion(ordinal, version)
		cluster.Down(ordinal)
		cluster.Join(ordinal)
	}
	// upgrade is the step's observation: the pods' images, v24.3.1 on ordinal 2 only; the
	// reports are left for the check to read.
	upgrade := func(image string, images ...string) step.Step {
		u := step.Upgrade{Image: image}
		for o := 2; o >= 0; o-- {
			u.Brokers = append(u.Brokers, step.BrokerVersion{Ordinal: int32(o), Pod: testName + "-" + string(rune('0'+o)),
				Image: images[o], Current: images[o] == image, ID: ids[int32(o)], IDKnown: true})
		}
		return step.Step{Kind: step.StartRestart, Upgrade: u}
	}
	check := func(s step.Step) error {
		list, err := client.Brokers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return checkVersion(ctx, client, s, list, (*View)(nil).featuresIndex(nil))
	}
	features := func() []int {
		var out []int
		for _, c := range cluster.Calls() {
			if c.Path == "/v1/features" {
				out = append(out, c.Ordinal)
			}
		}
		return out
	}

	restart(2, "v24.3.1")
	if err := check(upgrade("r:v24.3.1", "r:v24.2.4", "r:v24.2.4", "r:v24.3.1")); err != nil || len(features()) != 0 {
		t.Fatalf("the next feature release: %v, features asked of %v; want it allowed without asking", err, features())
	}
	if err := check(upgrade("r:v24.2.4", "r:v24.2.4", "r:v24.2.4", "r:v24.3.1")); err != nil {
		t.Fatalf("a rollback while two brokers still run v24.2: %v", err)
	}
	if asked := features(); len(asked) != 1 || asked[0] == 2 {
		t.Fatalf("GET /v1/features asked of ordinals %v; want one broker still on v24.2", asked)
	}

	// Every broker on v24.3 moves the active version; a broker put back on v24.2 by hand does
	// not make a rollback possible again.
	restart(1, "v24.3.1")
	restart(0, "v24.3.1")
	restart(0, "v24.2.4")
	err = check(upgrade("r:v24.2.4", "r:v24.2.4", "r:v24.3.1", "r:v24.3.1"))
	var fe *step.FactError
	if !errors.As(err, &fe) || fe.Fact != step.FactSupportedVersion || !strings.Contains(fe.Why, "active logical version is 14, past 13") {
		t.Fatalf("a rollback once the active version moved: %v; want FactSupportedVersion refused naming both logical versions", err)
	}
}
