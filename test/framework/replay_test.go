package framework

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestReplayCommandNamesTheFlagsSetAndTheSeed(t *testing.T) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.Duration("test.timeout", 10*time.Minute, "")
	fs.Bool("test.v", false, "")
	fs.String("lag", "0-50ms", "")
	fs.Int("clusters", 10, "")
	fs.Uint64("seed", 0, "")
	if err := fs.Parse([]string{"-test.timeout=30m", "-test.v", "-lag=5ms-20ms", "-seed=7"}); err != nil {
		t.Fatal(err)
	}
	got := replayCommand(fs, "go test ./x -run TestX", 42)
	// Flags left at their defaults (-clusters) and go test's own (-test.v) are not named; the
	// seed given is replaced by the one drawn.
	if want := "go test ./x -run TestX -timeout=30m0s -args -lag=5ms-20ms -seed=42"; got != want {
		t.Errorf("replayCommand = %q, want %q", got, want)
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
