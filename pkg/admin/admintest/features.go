package admintest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// The features endpoint and the cluster's active logical version. Redpanda versions its
// cluster-wide formats with logical versions, one a feature release
// (redpanda-data/redpanda src/v/features/feature_table.h, release_version: v22.1.1 is 3, v22.1.5
// 4, v22.2.1 5, v22.2.6 6, v22.3.1 7, v22.3.6 8, v23.1.1 9, v23.2.1 10, v23.3.1 11, v24.1.1 12,
// v24.2.1 13, v24.3.1 14, v25.1.1 15). A binary supports the logical versions from
// earliest_version to latest_version, three apart (src/v/features/feature_table.cc). The
// controller leader moves the active version up to the highest a broker reports only once every
// member is alive and reports at least that (src/v/cluster/feature_manager.cc,
// do_maybe_update_active_version); it never moves down.

// logicalLatest is the latest logical version the binary of a release supports. Feature
// releases after v25.1, which the cited source does not list, count on one a release (not
// confirmed against Redpanda). A version the simulator cannot read (a custom tag) counts as
// fallback's.
func logicalLatest(version, fallback string) int64 {
	year, feature, patch, ok := parseRelease(version)
	if !ok {
		if year, feature, patch, ok = parseRelease(fallback); !ok {
			year, feature, patch = 24, 2, 4 // DefaultVersion
		}
	}
	switch {
	case year == 22 && feature == 1:
		return 3 + b2i(patch >= 5)
	case year == 22 && feature == 2:
		return 5 + b2i(patch >= 6)
	case year == 22:
		return 7 + b2i(patch >= 6)
	case year < 22:
		return 3
	}
	// v23.1.1 is 9, then one a feature release, three a year.
	return int64(9 + (year-23)*3 + (feature - 1))
}

// logicalEarliest is the earliest logical version the binary of a release supports.
func logicalEarliest(version, fallback string) int64 {
	return max(logicalLatest(version, fallback)-3, 3)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// parseRelease reads "v24.2.4", "24.2.4" or "v24.2.4 - 1a2b3c" as year 24, feature release 2,
// patch 4.
func parseRelease(version string) (year, feature, patch int, ok bool) {
	v, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(version), "v"), " ")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	digits := func(s string) (int, bool) {
		end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
		if end >= 0 {
			s = s[:end]
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	var ok1, ok2, ok3 bool
	year, ok1 = digits(parts[0])
	feature, ok2 = digits(parts[1])
	patch, ok3 = digits(parts[2])
	return year, feature, patch, ok1 && ok2 && ok3
}

// advanceActiveVersion moves the active version up as feature_manager does: to the highest
// latest version a member reports, once every member is alive and reports it. The first broker
// to join sets the active and the original version. Callers hold s.mu.
func (c *Cluster) advanceActiveVersion() {
	highest, lowest, members := int64(-1), int64(-1), 0
	for _, m := range c.members {
		if m.status == admin.MembershipRemoved {
			continue
		}
		members++
		if !c.alive(m) {
			return
		}
		v := logicalLatest(m.version, c.s.opts.Version)
		highest = max(highest, v)
		if lowest < 0 || v < lowest {
			lowest = v
		}
	}
	if members == 0 {
		return
	}
	if c.originalVersion == 0 {
		c.originalVersion, c.activeVersion = lowest, lowest
	}
	if lowest == highest && highest > c.activeVersion {
		c.activeVersion = highest
	}
}

// features answers GET /v1/features of the addressed pod as server.cc
// register_features_routes does: cluster_version (the active version),
// original_cluster_version, and node_earliest_version and node_latest_version of the binary the
// addressed pod runs (api-doc/features.json features_response). The feature list is empty: no
// simulated feature is modelled.
func (c *Cluster) features(p pod) reply {
	version := c.binaryVersion(p)
	active, original := c.activeVersion, c.originalVersion
	if original == 0 { // no broker has joined yet: the feature table is not initialised
		active, original = -1, -1
	}
	return reply{status: http.StatusOK, body: map[string]any{
		"cluster_version":          active,
		"original_cluster_version": original,
		"node_earliest_version":    logicalEarliest(version, c.s.opts.Version),
		"node_latest_version":      logicalLatest(version, c.s.opts.Version),
		"features":                 []any{},
	}}
}

// ActiveVersion is the cluster's active logical version (0 before any broker joined).
func (c *Cluster) ActiveVersion() int64 {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	return c.activeVersion
}

// joinRefusal says why the cluster refuses a broker running version when it asks to join, as
// service.cc join_node does: the binary's range of logical versions must hold the active one
// (earliest_version not above it, latest_version not below it). "" when it may join, and always
// before the first broker has joined. upgrade_override_checks is not modelled.
func (c *Cluster) joinRefusal(version string) string {
	if c.originalVersion == 0 {
		return ""
	}
	earliest, latest := logicalEarliest(version, c.s.opts.Version), logicalLatest(version, c.s.opts.Version)
	if earliest <= c.activeVersion && latest >= c.activeVersion {
		return ""
	}
	return fmt.Sprintf("Rejecting join request from incompatible node running %s, our version %d vs their %d-%d", version, c.activeVersion, earliest, latest)
}

// binaryVersion is the version pod p runs: its broker's, or, for a pod refused at join, the
// one it was started with. Callers hold s.mu.
func (c *Cluster) binaryVersion(p pod) string {
	if m := c.byPod[p]; m != nil && !c.incompatible[p] {
		return m.version
	}
	if v := c.podVersion[p]; v != "" {
		return v
	}
	return c.s.opts.Version
}
