package brokers

import (
	"context"
	"fmt"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// The brokers' part of the version check (step/upgrade.go): what each broker reports of its own
// version in GET /v1/brokers ("v24.2.4 - <sha>", src/v/redpanda/admin/server.cc get_brokers,
// from the health report, so only brokers that are up report it), and, for a rollback, what
// GET /v1/features of a broker still on the original release says of the cluster's active
// logical version.

// observeUpgrade fills in the brokers' reports and, for a rollback, GET /v1/features.
func (view *View) observeUpgrade(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, o *step.Observation) {
	u := &o.Rollout.Upgrade
	for i := range u.Brokers {
		b := &u.Brokers[i]
		if b.Pool != "" {
			if b.IDKnown {
				b.Reported = view.byID[int(b.ID)].Version // another pool's: the ID its pod records
			}
			continue
		}
		id := view.identities[int(b.Ordinal)]
		if !id.Known {
			continue
		}
		b.ID, b.IDKnown = id.ID, true
		b.Reported = view.byID[int(id.ID)].Version
	}
	readFeatures(ctx, client, u, view.featuresIndex(bc))
}

// featuresIndex finds a broker's admin URL for GET /v1/features: a pod of the pool looked at by
// its ordinal, another pool's by the broker ID its pod records (urlOf).
func (view *View) featuresIndex(bc *v1alpha1.BrokerCluster) func(step.BrokerVersion) (int, bool) {
	return func(b step.BrokerVersion) (int, bool) {
		if b.Pool == "" {
			return int(b.Ordinal), true
		}
		if view == nil || !b.IDKnown {
			return 0, false
		}
		i, _, ok := view.urlOf(bc, b.ID)
		return i, ok
	}
}

// reReport replaces each broker's report with what brokers, read afresh, says.
func reReport(u *step.Upgrade, brokers []admin.Broker) {
	byID := map[int32]string{}
	for _, b := range brokers {
		if b.MembershipStatus != admin.MembershipRemoved {
			byID[int32(b.NodeID)] = b.Version
		}
	}
	for i := range u.Brokers {
		if b := &u.Brokers[i]; b.IDKnown {
			b.Reported = byID[b.ID]
		}
	}
}

// readFeatures asks GET /v1/features of the broker still on the release a rollback goes back
// to: the node_latest_version it answers is its own binary's (askBroker asks it alone). Nothing
// is asked unless the change is a rollback.
func readFeatures(ctx context.Context, client admin.Client, u *step.Upgrade, indexOf func(step.BrokerVersion) (int, bool)) {
	u.Features = step.Features{}
	v := u.Check()
	if !v.Rollback {
		return
	}
	u.Features = step.Features{Asked: true, Pod: v.Original.Pod}
	i, ok := indexOf(v.Original)
	if !ok {
		u.Features.Problem = fmt.Sprintf("no admin URL is known for pod %s", v.Original.Pod)
		return
	}
	f, err := client.Features(ctx, i)
	if err != nil {
		u.Features.Problem = err.Error()
		return
	}
	u.Features.ClusterVersion, u.Features.NodeLatest = f.ClusterVersion, f.NodeLatestVersion
}

// checkVersion judges FactSupportedVersion afresh: the pods' images as the step was decided on,
// the brokers' reports from brokers, read just now, and GET /v1/features asked again.
func checkVersion(ctx context.Context, client admin.Client, s step.Step, brokers []admin.Broker, indexOf func(step.BrokerVersion) (int, bool)) error {
	u := s.Upgrade
	u.Brokers = append([]step.BrokerVersion(nil), u.Brokers...)
	reReport(&u, brokers)
	readFeatures(ctx, client, &u, indexOf)
	if why := u.Check().Refused; why != "" {
		return &step.FactError{Fact: step.FactSupportedVersion, Why: why}
	}
	return nil
}
