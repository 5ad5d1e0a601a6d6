//go:build !race

package controller

// defaultPropertySchedules is TestIrreversibleStepsHoldTheirFacts' default without the race
// detector: 2,000 schedules, about 30 s of one core.
const defaultPropertySchedules = 2000
