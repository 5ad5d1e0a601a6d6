package harness

import "math/rand/v2"

// Schedule is one cluster's life in the experiment: the replicas it is created with, then the
// spec.replicas it is set to, one step at a time, each step waiting for the cluster to converge.
type Schedule struct {
	Initial int32
	Targets []int32
}

// Replica bounds of a scheduled cluster.
const (
	scheduleMinReplicas = 1
	scheduleMaxReplicas = 7
)

// NewSchedule draws a schedule with exactly decommissions scale-down steps, each by one broker
// (one decommission each), with scale-ups of one or two brokers mixed in: about one step in
// three where a scale-down is possible, and always when the cluster is down to one broker.
func NewSchedule(rng *rand.Rand, decommissions int) Schedule {
	s := Schedule{Initial: 3 + rng.Int32N(2)}
	cur := s.Initial
	for downs := 0; downs < decommissions; {
		canGrow := cur < scheduleMaxReplicas
		if cur <= scheduleMinReplicas || (canGrow && rng.IntN(3) == 0) {
			cur = min(cur+1+rng.Int32N(2), scheduleMaxReplicas)
		} else {
			cur--
			downs++
		}
		s.Targets = append(s.Targets, cur)
	}
	return s
}

// Schedules draws n schedules from seed; cluster i's schedule depends only on seed and i.
func Schedules(seed uint64, n, decommissions int) []Schedule {
	out := make([]Schedule, n)
	for i := range out {
		out[i] = NewSchedule(rand.New(rand.NewPCG(seed, uint64(i))), decommissions)
	}
	return out
}

// Max is the most replicas the cluster ever has.
func (s Schedule) Max() int32 {
	m := s.Initial
	for _, t := range s.Targets {
		m = max(m, t)
	}
	return m
}

// Decommissions counts the brokers the schedule removes.
func (s Schedule) Decommissions() int {
	n, prev := 0, s.Initial
	for _, t := range s.Targets {
		if t < prev {
			n += int(prev - t)
		}
		prev = t
	}
	return n
}
