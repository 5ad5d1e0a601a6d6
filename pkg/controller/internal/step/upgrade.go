package step

import "fmt"

// The upgrade path. Redpanda supports a change of version only along its path (docs.redpanda.com,
// "Upgrade Redpanda", Limitations): up one feature release at a time (v24.2 to v24.3, never
// v24.2 to v25.1); down only between patches of one feature release; back to the original
// release (a rollback) only while a broker still runs it and the cluster has not moved on. The
// cluster moves on when its active logical version goes up, which the controller leader does
// once every member is alive and runs a binary that supports the new one
// (redpanda-data/redpanda src/v/cluster/feature_manager.cc, do_maybe_update_active_version);
// from then on a broker whose binary's logical versions do not reach the active one is refused
// when it joins (src/v/cluster/service.cc, join_node), so a rolled-back broker would never come
// back. A rollout whose change breaks the path is held before any broker restarts
// (HoldVersionChange), and every step that restarts a broker checks the path afresh
// (FactSupportedVersion).
//
// A broker's version is its pod's image tag when that is a version, else the broker's own report
// (GET /v1/brokers, version). The version a rollout goes to is the current template's image
// tag when that is a version, else the report of a broker whose pod runs that template already;
// an image named by a digest alone or by a custom tag has neither before the first restart, and
// its first restart goes ahead unchecked, which its reason says.

// Upgrade is what the version check of a rollout rests on: the pods' images (ObserveRollout),
// the brokers' reports and GET /v1/features (brokers.Admin.Observe).
type Upgrade struct {
	// Image is the image the current pod template runs (spec.image).
	Image string
	// Brokers are the pods below C, highest ordinal first; with pools, then every other
	// pool's (Pool set), so that no pool is taken off Redpanda's path by another's rollout.
	Brokers []BrokerVersion
	// Features is GET /v1/features of a broker still on the release a rollback goes back to;
	// asked only for a rollback.
	Features Features
}

// BrokerVersion is what is known of one broker's version.
type BrokerVersion struct {
	// Pool is the pool of a pod of another pool than the one looked at; "" for that one's.
	Pool    string
	Ordinal int32
	Pod     string
	// Image is the image its pod runs; Current: its pod was made from the current template.
	Image   string
	Current bool
	ID      int32
	IDKnown bool
	// Reported is the version the broker reports in GET /v1/brokers, "" when it does not.
	Reported string
}

// Features is GET /v1/features of one broker (admin.Features): the cluster's active logical
// version and the latest its own binary supports.
type Features struct {
	Asked bool
	Pod   string
	// ClusterVersion is cluster_version; NodeLatest node_latest_version.
	ClusterVersion, NodeLatest int64
	// Problem says why it did not answer, "" when it did.
	Problem string
}

// Version is the version b runs: its pod's image tag when that is a version, else its own report.
func (b BrokerVersion) Version() (Version, bool) {
	if v, ok := ParseVersion(ImageTag(b.Image)); ok {
		return v, true
	}
	return ParseVersion(b.Reported)
}

func (b BrokerVersion) name() string { return brokerOnPod(b.ID, b.IDKnown, b.Pod) }

// Target is the version the current template runs, and how it is known.
func (u Upgrade) Target() (Version, string, bool) {
	if v, ok := ParseVersion(ImageTag(u.Image)); ok {
		return v, "the tag of image " + u.Image, true
	}
	for _, b := range u.Brokers {
		if v, ok := ParseVersion(b.Reported); ok && b.Current {
			return v, fmt.Sprintf("what %s, on image %s already, reports", b.name(), u.Image), true
		}
	}
	return Version{}, "", false
}

// Changing reports whether the rollout changes the image a broker runs.
func (u Upgrade) Changing() bool {
	for _, b := range u.Brokers {
		if !b.Current && b.Image != "" && b.Image != u.Image {
			return true
		}
	}
	return false
}

// runs returns a broker that runs v's feature release.
func (u Upgrade) runs(v Version) (BrokerVersion, bool) {
	for _, b := range u.Brokers {
		if bv, ok := b.Version(); ok && bv.SameRelease(v) {
			return b, true
		}
	}
	return BrokerVersion{}, false
}

// Verdict is the version check's answer.
type Verdict struct {
	// Refused names the rule the change breaks, with both versions and what to do; "" when none.
	Refused string
	// Rollback: the change goes back to an older feature release that Original still runs;
	// GET /v1/features of Original decides whether the cluster has moved on.
	Rollback bool
	Original BrokerVersion
	// Unchecked says why the path cannot be checked before a broker runs the new image.
	Unchecked string
}

// Check judges the rollout's change of version against Redpanda's path.
func (u Upgrade) Check() Verdict {
	if !u.Changing() {
		return Verdict{}
	}
	to, how, ok := u.Target()
	if !ok {
		return Verdict{Unchecked: fmt.Sprintf("the upgrade path is not checked: image %s names no Redpanda version (a digest or a custom tag) and no broker runs it yet", u.Image)}
	}
	var v Verdict
	judged := false
	for _, b := range u.Brokers {
		from, known := b.Version()
		judged = judged || (known && !b.Current)
		switch {
		case !known || from.SameRelease(to):
			continue
		case from.releaseBefore(to) && oneReleaseUp(from, to):
			continue
		case from.releaseBefore(to):
			return Verdict{Refused: fmt.Sprintf("%s runs %s, and %s (%s) skips a feature release: Redpanda upgrades one feature release at a time, so set spec.image to a %s image first",
				b.name(), from, to, how, from.nextRelease().Release())}
		}
		orig, found := u.runs(to)
		if !found {
			return Verdict{Refused: fmt.Sprintf("%s runs %s, and going back to %s (%s) is a downgrade to an older feature release: Redpanda downgrades only between patches of one feature release, and rolls back to an older one only while a broker still runs it, and none runs %s; set spec.image back to a %s image",
				b.name(), from, to, how, to.Release(), from.Release())}
		}
		v.Rollback, v.Original = true, orig
		f := u.Features
		switch {
		case !f.Asked:
			v.Refused = fmt.Sprintf("rolling back from %s to %s waits: the cluster's active version has not been read (GET /v1/features)", from, to)
		case f.Problem != "":
			v.Refused = fmt.Sprintf("rolling back from %s to %s waits: cannot tell whether the cluster's active version has moved on, GET /v1/features of pod %s did not answer: %s", from, to, f.Pod, f.Problem)
		case f.ClusterVersion > f.NodeLatest:
			v.Refused = fmt.Sprintf("rolling back %s from %s to %s is no longer possible: the cluster's active logical version is %d, past %d, the latest %s supports (GET /v1/features of pod %s): every broker has run %s and the cluster has moved on, and Redpanda refuses the join of a broker whose binary does not reach the active version; set spec.image back to a %s image",
				b.name(), from, to, f.ClusterVersion, f.NodeLatest, to.Release(), f.Pod, from.Release(), from.Release())
			return v
		}
	}
	if !judged && v.Refused == "" {
		v.Unchecked = fmt.Sprintf("the upgrade path to %s is not checked: no broker on an older pod template has a known version (its image tag is not one, and it reports none)", to)
	}
	return v
}
