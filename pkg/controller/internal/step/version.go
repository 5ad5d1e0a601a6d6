package step

import (
	"fmt"
	"strconv"
	"strings"
)

// Redpanda's release versions are YY.F.P: the year, the feature release within it, the patch
// (docs.redpanda.com, "Upgrade Redpanda"). A broker reports its own as "v24.2.4 - <git sha>"
// (redpanda-data/redpanda src/v/version/version.cc.in, redpanda_version, which GET /v1/brokers
// passes on from the health report: src/v/redpanda/admin/server.cc, get_brokers).

// Version is one Redpanda release version.
type Version struct{ Year, Feature, Patch int }

// ParseVersion reads "v24.2.4", "24.2.4", "v24.2.4 - 1a2b3c" or "v24.2.4-rc1". Anything else is
// not a version: a custom tag ("latest", "2", "stable") names none.
func ParseVersion(s string) (Version, bool) {
	s, _, _ = strings.Cut(strings.TrimSpace(s), " ")
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return Version{}, false
	}
	parts[2], _, _ = strings.Cut(parts[2], "-") // a pre-release suffix
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Version{}, false
		}
		n[i] = v
	}
	return Version{Year: n[0], Feature: n[1], Patch: n[2]}, true
}

func (v Version) String() string { return fmt.Sprintf("v%d.%d.%d", v.Year, v.Feature, v.Patch) }

// Release names v's feature release: "v24.2".
func (v Version) Release() string { return fmt.Sprintf("v%d.%d", v.Year, v.Feature) }

// SameRelease reports whether v and o are patches of one feature release.
func (v Version) SameRelease(o Version) bool { return v.Year == o.Year && v.Feature == o.Feature }

// releaseBefore reports whether v's feature release is older than o's.
func (v Version) releaseBefore(o Version) bool {
	return v.Year < o.Year || (v.Year == o.Year && v.Feature < o.Feature)
}

// nextRelease is the feature release after v's: the next one of its year, or, after the third,
// the first of the next year. Redpanda has made three feature releases a year (feature_table.h
// release_version lists v22.1 to v22.3, v23.1 to v23.3, v24.1 to v24.3, then v25.1).
func (v Version) nextRelease() Version {
	if v.Feature < 3 {
		return Version{Year: v.Year, Feature: v.Feature + 1}
	}
	return Version{Year: v.Year + 1, Feature: 1}
}

// oneReleaseUp reports whether to is the feature release right after from's. A fourth feature
// release in a year, which Redpanda has never made, would count too.
func oneReleaseUp(from, to Version) bool {
	return to.SameRelease(from.nextRelease()) || (to.Year == from.Year && to.Feature == from.Feature+1)
}

// ImageTag is the tag of an image reference, "" when it has none: "redpanda:v24.2.4" and
// "redpanda:v24.2.4@sha256:..." have v24.2.4; "redpanda@sha256:..." and "host:5000/redpanda"
// have none.
func ImageTag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[colon+1:]
	}
	return ""
}
