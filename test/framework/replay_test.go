package framework

import (
	"flag"
	"strings"
	"testing"
)

func TestReplayCommandNamesTheFlagsSetAndTheSeed(t *testing.T) {
	var lag string
	flag.StringVar(&lag, "replay-test-lag", "", "")
	if err := flag.Set("replay-test-lag", "0-50ms"); err != nil {
		t.Fatal(err)
	}
	got := ReplayCommand("go test ./x -run TestX", 42)
	if !strings.HasPrefix(got, "go test ./x -run TestX") || !strings.Contains(got, " -args ") ||
		!strings.Contains(got, "-replay-test-lag=0-50ms") || !strings.HasSuffix(got, "-seed=42") {
		t.Errorf("ReplayCommand = %q", got)
	}
}
