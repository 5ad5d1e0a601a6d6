package brokers

import (
	"maps"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

func TestRestartWaitsUntilEveryBrokerHasTheSameConfigVersion(t *testing.T) {
	mixed := []admin.ConfigStatus{{NodeID: 1, ConfigVersion: 4, Restart: true}, {NodeID: 2, ConfigVersion: 3}}
	if got := RestartNeeded(mixed); len(got) != 0 {
		t.Errorf("restartNeeded with versions 4 and 3 = %v, want none until every broker applied 4", got)
	}
	same := []admin.ConfigStatus{{NodeID: 1, ConfigVersion: 4, Restart: true}, {NodeID: 2, ConfigVersion: 4}}
	if got := RestartNeeded(same); !maps.Equal(got, map[int32]bool{1: true}) {
		t.Errorf("restartNeeded = %v, want broker 1", got)
	}
}
