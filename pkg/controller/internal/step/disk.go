package step

import "fmt"

// The disk part of the scale-down pre-flight. A decommission moves every replica of the leaving
// brokers onto the remaining ones, so what counts is:
//
//   - the leaving brokers' data: the bytes in use on their data disks (total minus free, from
//     GET /v1/brokers disk_space, which the health report fills: api-doc/broker.json
//     disk_space_info). It is an upper bound on their replicas' size (the disk also holds the
//     broker's own files), which errs on the side of holding.
//   - what the remaining brokers can take: each one's free bytes less the floor Redpanda keeps
//     free, the larger of storage_min_free_bytes (below it the broker is degraded and
//     refuses producers) and storage_space_alert_free_threshold_percent of its disk (below it,
//     low_space: Redpanda's alert), as redpanda-data/redpanda src/v/cluster/node/local_monitor.cc
//     calc_alert_thresholds computes them (defaults 5 GiB and 5%, config/configuration.cc), so
//     that the move leaves no remaining broker degraded or alerting.
//
// The sum over the remaining brokers must hold the sum over the leaving ones. A broker whose
// disk is not reported (not alive) makes the check unknown: the health gate holds a scale-down
// while a broker is down anyway.

// DiskFit is what the disk check rests on.
type DiskFit struct {
	Asked              bool
	Leaving, Remaining []BrokerDisk
	// MinFreeBytes is storage_min_free_bytes; AlertPercent
	// storage_space_alert_free_threshold_percent.
	MinFreeBytes int64
	AlertPercent int64
}

// BrokerDisk is one broker's data disk, Known when its list entry carries disk_space.
type BrokerDisk struct {
	ID          int32
	Known       bool
	Free, Total int64
}

// floor is the free space Redpanda keeps on a disk of total bytes.
func (d DiskFit) floor(total int64) int64 { return max(d.MinFreeBytes, total/100*d.AlertPercent) }

// Room is what the remaining brokers can take, and Needed the leaving brokers' data; ok false
// when a disk is not known.
func (d DiskFit) Room() (room, needed int64, ok bool) {
	for _, b := range d.Leaving {
		if !b.Known {
			return 0, 0, false
		}
		needed += b.Total - b.Free
	}
	for _, b := range d.Remaining {
		if !b.Known {
			return 0, 0, false
		}
		room += max(b.Free-d.floor(b.Total), 0)
	}
	return room, needed, true
}

// Refused says why the remaining brokers cannot take the leaving ones' data; "" when they can
// or it is not known.
func (d DiskFit) Refused() string {
	if !d.Asked || len(d.Leaving) == 0 {
		return ""
	}
	room, needed, ok := d.Room()
	if !ok || needed <= room {
		return ""
	}
	return fmt.Sprintf("the leaving brokers hold %s on their data disks and the %d brokers that would remain can take only %s before reaching the free space Redpanda keeps (the larger of storage_min_free_bytes, %s, and storage_space_alert_free_threshold_percent, %d%%, of each disk): free disk space, delete or shorten the retention of topics, or keep spec.replicas where it is",
		gib(needed), len(d.Remaining), gib(room), gib(d.MinFreeBytes), d.AlertPercent)
}

// gib writes bytes in GiB with one decimal, so that a message does not change with every byte.
func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
