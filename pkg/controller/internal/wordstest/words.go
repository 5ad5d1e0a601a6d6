// Package wordstest checks, in tests, that a message is in words an on-call engineer reads
// without the source: no state machine letters standing alone, no comparisons, no formatting
// mistakes.
package wordstest

import (
	"regexp"
	"testing"
)

// codeWords finds what only a reader of the source understands: the state machine's letters
// (C, D, B, R) standing alone, comparisons, and formatting mistakes.
var codeWords = regexp.MustCompile(`\b[A-Z]\b|[<>≥≤]|%!|current \d+, desired`)

// Check fails t when text, the message of what, is empty or not in words.
func Check(t testing.TB, what, text string) {
	t.Helper()
	if text == "" {
		t.Errorf("%s: no message", what)
	}
	if m := codeWords.FindString(text); m != "" {
		t.Errorf("%s: %q uses %q", what, text, m)
	}
}
