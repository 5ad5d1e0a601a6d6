package admintest

// What the scale-down pre-flight reads of each broker besides the partitions: its rack and its
// data disk, as GET /v1/brokers reports them (redpanda-data/redpanda
// src/v/redpanda/admin/api-doc/broker.json, broker: rack, disk_space of disk_space_info; server.cc
// get_brokers writes rack only when the broker's node_config has one, and disk_space from the
// health report). They belong to the pod: a broker that rejoins from it reports the same.

// SetRack sets the rack the broker of the pod with this ordinal reports, its redpanda.rack; ""
// for none.
func (c *Cluster) SetRack(ordinal int, rack string) { c.setRack(pod{ordinal: ordinal}, rack) }

func (c *Cluster) setRack(p pod, rack string) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.racks[p] = rack
}

// SetDisk sets the free and total bytes of the data directory of the broker of the pod with this
// ordinal; by default 90 GiB free of 100 GiB.
func (c *Cluster) SetDisk(ordinal int, free, total int64) {
	c.setDisk(pod{ordinal: ordinal}, free, total)
}

func (c *Cluster) setDisk(p pod, free, total int64) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.disks[p] = diskSpaceJSON{Path: dataDirectory, Free: free, Total: total}
}

// diskOf is the data disk the broker of pod p reports. Callers hold s.mu.
func (c *Cluster) diskOf(p pod) diskSpaceJSON {
	if d, ok := c.disks[p]; ok {
		return d
	}
	return diskSpaceJSON{Path: dataDirectory, Free: diskFreeBytes, Total: diskTotalBytes}
}
