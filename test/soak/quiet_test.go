package soak

import (
	"slices"
	"testing"
	"time"
)

func TestQuietWindows(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		sizes int
		want  []time.Duration
	}{
		{"1m", 3, []time.Duration{time.Minute, time.Minute, time.Minute}},
		{"30s, 1m,10m", 3, []time.Duration{30 * time.Second, time.Minute, 10 * time.Minute}},
		{"2m", 1, []time.Duration{2 * time.Minute}},
	} {
		got, err := QuietWindows(tc.spec, tc.sizes)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("QuietWindows(%q, %d) = %v, %v; want %v", tc.spec, tc.sizes, got, err, tc.want)
		}
	}
	for _, spec := range []string{"1m,2m", "1m,0s,3m", "soon", "-1m"} {
		if got, err := QuietWindows(spec, 3); err == nil {
			t.Errorf("QuietWindows(%q, 3) = %v, want an error", spec, got)
		}
	}
}
