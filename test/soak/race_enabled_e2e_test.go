//go:build e2e && race

package soak

// raceEnabled: the test runs with -race, so the operator is built with it too, and a data race it
// hits fails the run.
const raceEnabled = true
