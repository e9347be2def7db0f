package sim

// OSFlushAfter is how long the operating system keeps a written record only in its
// page cache before flushing it on its own (Linux's dirty_expire_centisecs, 30 s).
// Past that, a power loss no longer loses it even without an fsync.
const OSFlushAfter = Time(30e9)

// Disk is what a process has handed to the operating system. A crash keeps all of
// it; a power loss keeps only the durable prefix: records fsynced, or written long
// enough ago that the OS has flushed them. What survives is decided here, by the
// persistence policy the process follows (when it writes and when it fsyncs).
type Disk struct {
	recs   []diskRecord
	synced int
}

type diskRecord struct {
	msg Message
	at  Time
}

func (d *Disk) write(at Time, recs []Message, fsyncAt int) {
	old := len(d.recs)
	for _, r := range recs {
		d.recs = append(d.recs, diskRecord{r, at})
	}
	if fsyncAt >= 0 {
		d.synced = old + fsyncAt
	}
}

// powerLoss drops every record that is not durable at true time now and returns how
// many were lost.
func (d *Disk) powerLoss(now Time) int {
	keep := d.synced
	for keep < len(d.recs) && d.recs[keep].at+OSFlushAfter <= now {
		keep++
	}
	lost := len(d.recs) - keep
	d.recs = d.recs[:keep]
	d.synced = keep
	return lost
}

func (d *Disk) syncAll() { d.synced = len(d.recs) }

// Records returns a copy of the records, oldest first, payloads included: a
// restarted process that changes what it read back does not change its disk.
func (d *Disk) Records() []Message {
	out := make([]Message, len(d.recs))
	for i, r := range d.recs {
		out[i] = r.msg.Clone()
	}
	return out
}

// Len is the number of records written.
func (d *Disk) Len() int { return len(d.recs) }
