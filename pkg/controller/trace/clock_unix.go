//go:build unix

package trace

import (
	"time"

	"golang.org/x/sys/unix"
)

// systemMonotonic reads CLOCK_MONOTONIC, the clock Go's own monotonic readings come from.
func systemMonotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return time.Now().UnixNano()
	}
	return ts.Nano()
}
