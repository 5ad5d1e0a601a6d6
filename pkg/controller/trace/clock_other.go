//go:build !unix

package trace

import "time"

// systemMonotonic falls back to the wall clock where there is no CLOCK_MONOTONIC to read.
func systemMonotonic() int64 { return time.Now().UnixNano() }
