// Package version holds the build's version stamp, set by the linker:
//
//	go build -ldflags "-X github.com/broker-operator/broker-operator/internal/version.Version=v0.1.0"
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the release this binary was built from; "dev" for a plain go build.
var Version = "dev"

// String describes the build in one line: version, VCS revision when known, and Go version.
func String() string {
	rev := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				rev = s.Value
			}
		}
	}
	return fmt.Sprintf("broker-operator %s (revision %s, %s)", Version, rev, runtime.Version())
}
