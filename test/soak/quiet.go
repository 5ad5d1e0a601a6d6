package soak

import (
	"fmt"
	"strings"
	"time"
)

// QuietWindows reads the scale mode's -quiet flag: one duration for every size, or one per size,
// comma-separated, so that a long window (the compressed quiet hour) can be spent only on the
// largest size.
func QuietWindows(spec string, sizes int) ([]time.Duration, error) {
	fields := strings.Split(spec, ",")
	if len(fields) != 1 && len(fields) != sizes {
		return nil, fmt.Errorf("-quiet=%q: want one duration, or one for each of the %d sizes", spec, sizes)
	}
	out := make([]time.Duration, sizes)
	for i := range out {
		f := strings.TrimSpace(fields[min(i, len(fields)-1)])
		d, err := time.ParseDuration(f)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("-quiet=%q: %q is not a positive duration", spec, f)
		}
		out[i] = d
	}
	return out, nil
}
