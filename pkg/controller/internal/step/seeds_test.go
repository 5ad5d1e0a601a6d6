package step

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/utils/ptr"
	"pgregory.net/rapid"
)

func candidate(pool string, ordinal, id int32) SeedCandidate {
	return SeedCandidate{Host: fmt.Sprintf("%s-%d", pool, ordinal), Pool: pool, Ordinal: ordinal, ID: id, Active: true, Alive: true}
}

func TestChooseSeedsThroughAMove(t *testing.T) {
	old := []SeedCandidate{candidate(DefaultPool, 0, 100), candidate(DefaultPool, 1, 101), candidate(DefaultPool, 2, 102)}
	blue := []SeedCandidate{candidate("blue", 0, 103), candidate("blue", 1, 104), candidate("blue", 2, 105)}

	// blue's pods are made; its brokers have not joined yet: the old pool is the only one to ask.
	pools := []PoolState{{Name: DefaultPool, Desired: 0, Current: 3}, {Name: "blue", Desired: 3, Current: 3}}
	if got := ChooseSeeds(old, pools, nil); !slices.Equal(got, []string{"default-0", "default-1", "default-2"}) {
		t.Errorf("before blue joined: %v, want the old pool's members", got)
	}
	// blue joined: the seeds move over to it, whatever the old pool still has.
	if got := ChooseSeeds(append(old, blue...), pools, nil); !slices.Equal(got, []string{"blue-0", "blue-1", "blue-2"}) {
		t.Errorf("after blue joined: %v, want blue's brokers", got)
	}
	// blue's broker 1 down, the old pool's broker 2 draining: neither is named.
	down := slices.Clone(blue)
	down[1].Alive = false
	if got := ChooseSeeds(append(old, down...), pools, ptr.To[int32](102)); !slices.Equal(got, []string{"blue-0", "blue-2"}) {
		t.Errorf("with a broker down: %v", got)
	}
	// Only the draining broker is left of the old pool and blue is not there yet: nothing
	// qualifies, and the seeds stay as they were.
	if got := ChooseSeeds(old[2:], []PoolState{{Name: DefaultPool, Desired: 0, Current: 3}}, ptr.To[int32](102)); got != nil {
		t.Errorf("with no live member: %v, want nil", got)
	}
	// A pod above its pool's C (its broker left, its pod not gone yet) is never named.
	if got := ChooseSeeds(old, []PoolState{{Name: DefaultPool, Desired: 2, Current: 2}}, nil); !slices.Equal(got, []string{"default-0", "default-1"}) {
		t.Errorf("with pod 2 above C: %v", got)
	}
}

// TestChooseSeedsNamesOnlyLiveMembers: whatever the members and pools, every host named is an
// active, alive member below its pool's C and not being decommissioned.
func TestChooseSeedsNamesOnlyLiveMembers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pools := []PoolState{
			{Name: DefaultPool, Desired: rapid.Int32Range(0, 3).Draw(t, "dd"), Current: rapid.Int32Range(0, 3).Draw(t, "dc")},
			{Name: "blue", Desired: rapid.Int32Range(0, 3).Draw(t, "bd"), Current: rapid.Int32Range(0, 3).Draw(t, "bc")},
		}
		var cands []SeedCandidate
		for i := range rapid.IntRange(0, 8).Draw(t, "n") {
			c := candidate(rapid.SampledFrom([]string{DefaultPool, "blue"}).Draw(t, "pool"), rapid.Int32Range(0, 3).Draw(t, "ordinal"), int32(100+i))
			c.Active, c.Alive = rapid.Bool().Draw(t, "active"), rapid.Bool().Draw(t, "alive")
			cands = append(cands, c)
		}
		var b *int32
		if rapid.Bool().Draw(t, "draining") && len(cands) > 0 {
			b = &cands[0].ID
		}
		for _, host := range ChooseSeeds(cands, pools, b) {
			ok := false
			for _, c := range cands {
				current := pools[0].Current
				if c.Pool == "blue" {
					current = pools[1].Current
				}
				ok = ok || (c.Host == host && c.Active && c.Alive && c.Ordinal < current && (b == nil || *b != c.ID))
			}
			if !ok {
				t.Fatalf("seed %s is no live member below its pool's C", host)
			}
		}
	})
}
