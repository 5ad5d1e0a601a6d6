//go:build e2e && race

package e2e

// raceEnabled: the suite runs with -race, so the operator is built with it too, and a data race
// it hits on a real control plane fails the test that ran it.
const raceEnabled = true
