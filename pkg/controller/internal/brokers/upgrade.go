package brokers

import (
	"context"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// The brokers' part of the version check (step/upgrade.go): what each broker reports of its own
// version in GET /v1/brokers ("v24.2.4 - <sha>", src/v/redpanda/admin/server.cc get_brokers,
// from the health report, so only brokers that are up report it), and, for a rollback, what
// GET /v1/features of a broker still on the original release says of the cluster's active
// logical version.

// observeUpgrade fills in the brokers' reports and, for a rollback, GET /v1/features.
func (view *View) observeUpgrade(ctx context.Context, client admin.Client, o *step.Observation) {
	u := &o.Rollout.Upgrade
	for i := range u.Brokers {
		b := &u.Brokers[i]
		id := view.identities[int(b.Ordinal)]
		if !id.Known {
			continue
		}
		b.ID, b.IDKnown = id.ID, true
		b.Reported = view.byID[int(id.ID)].Version
	}
	readFeatures(ctx, client, u)
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
func readFeatures(ctx context.Context, client admin.Client, u *step.Upgrade) {
	u.Features = step.Features{}
	v := u.Check()
	if !v.Rollback {
		return
	}
	u.Features = step.Features{Asked: true, Pod: v.Original.Pod}
	f, err := client.Features(ctx, int(v.Original.Ordinal))
	if err != nil {
		u.Features.Problem = err.Error()
		return
	}
	u.Features.ClusterVersion, u.Features.NodeLatest = f.ClusterVersion, f.NodeLatestVersion
}

// checkVersion judges FactSupportedVersion afresh: the pods' images as the step was decided on,
// the brokers' reports from brokers, read just now, and GET /v1/features asked again.
func checkVersion(ctx context.Context, client admin.Client, s step.Step, brokers []admin.Broker) error {
	u := s.Upgrade
	u.Brokers = append([]step.BrokerVersion(nil), u.Brokers...)
	reReport(&u, brokers)
	readFeatures(ctx, client, &u)
	if why := u.Check().Refused; why != "" {
		return &step.FactError{Fact: step.FactSupportedVersion, Why: why}
	}
	return nil
}
