//go:build race

package controller

// defaultPropertySchedules is TestIrreversibleStepsHoldTheirFacts' default under the race
// detector, which makes each schedule about ten times slower: 200 schedules, which check the
// test's own concurrency. make unit also runs the test without -race at its full default.
const defaultPropertySchedules = 200
