package framework

import (
	"flag"
	"os"
	"path/filepath"
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

func TestWriteBetweenMarkersKeepsTheRestOfTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte("intro\n<!-- b -->\nold\n<!-- e -->\noutro\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteBetweenMarkers(path, "<!-- b -->", "<!-- e -->", "new\n"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "intro\n<!-- b -->\nnew\n<!-- e -->\noutro\n"; string(got) != want {
		t.Errorf("file = %q, want %q", got, want)
	}
}
