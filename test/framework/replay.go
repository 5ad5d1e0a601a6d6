package framework

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReplayCommand is the go test command that replays a seeded run of this test binary: base
// (for example "go test -tags e2e ./test/race -run TestRaceExperiment -count=1 -v"), a
// -timeout other than go test's default, every other flag set on the command line, and the seed.
func ReplayCommand(base string, seed uint64) string {
	return replayCommand(flag.CommandLine, base, seed)
}

// replayCommand is ReplayCommand over the flags of fs.
func replayCommand(fs *flag.FlagSet, base string, seed uint64) string {
	args := []string{base}
	if f := fs.Lookup("test.timeout"); f != nil && f.Value.String() != "10m0s" {
		args = append(args, "-timeout="+f.Value.String())
	}
	args = append(args, "-args")
	fs.Visit(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") && f.Name != "seed" {
			args = append(args, fmt.Sprintf("-%s=%s", f.Name, f.Value))
		}
	})
	return strings.Join(append(args, fmt.Sprintf("-seed=%d", seed)), " ")
}

// WriteBetweenMarkers puts text into path (relative to the repository root): between the
// lines begin and end if the file has them, so that a report can live inside a document, else
// as the whole file.
func WriteBetweenMarkers(path, begin, end, text string) error {
	if !filepath.IsAbs(path) {
		root, err := RepositoryRoot()
		if err != nil {
			return err
		}
		path = filepath.Join(root, path)
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	content := string(old)
	before, rest, hasBegin := strings.Cut(content, begin)
	_, after, hasEnd := strings.Cut(rest, end)
	if hasBegin && hasEnd {
		content = before + begin + "\n" + text + end + after
	} else {
		content = text
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
