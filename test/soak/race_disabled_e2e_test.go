//go:build e2e && !race

package soak

const raceEnabled = false
