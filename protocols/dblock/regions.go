package dblock

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// Regions: a table replicated across regions, each region's database taking
// writes, and shipping each committed row to the others asynchronously. A
// conflict is settled by last writer wins: each row carries the wall-clock
// time of the write that produced it (and the region, to break a tie), and a
// region applies a replicated row only if it is newer than the one it has.
// This is how DynamoDB global tables resolve concurrent writes to one item
// ("last writer wins reconciliation between concurrent updates"; a
// conditional write is checked only in the region it is made in), and how
// Cassandra orders plain writes by their timestamps.
//
// The lesson is the optimistic update: each region checks the version against
// its own copy. Two clients that read version 1 in two regions both see their
// UPDATE ... WHERE version = 1 succeed, and replication then keeps one of the
// two rows and discards the other: an acknowledged update is lost. The
// database reports each update of a replicated row as a resource write
// (sim.ObsResource, the update named after the client's acquisition value),
// accepted where it is applied and refused where last writer wins discards
// it, so the checker's all-or-nothing sees an update that one region kept and
// another threw away.

// OpRepl carries a committed row to the other regions: Key the row, Value the
// update's name, Body a repl.
const OpRepl = "REPLICATE"

// repl is a replicated row and the client whose update produced it (a value:
// it is copied with the message).
type repl struct {
	Row    row
	Client sim.ProcID
	from   string // the writing region's name, for the log
}

func (r repl) String() string {
	return fmt.Sprintf("(version %d, value %d, written at %s by %s)", r.Row.Version, r.Row.Value, ms(r.Row.Stamp), r.from)
}

// replicate ships a row this region has just committed (stamped by stamp) to
// the other regions.
func (n *Node) replicate(name string, r *row, client sim.ProcID, update string, out *sim.Outputs) {
	n.resourceWrite(name, client, update, true, out)
	for _, p := range n.cfg.Peers {
		out.Send(p, sim.Message{Op: OpRepl, Key: name, Value: update, Body: repl{Row: *r, Client: client, from: n.env.Name}})
	}
}

// applyRepl applies a row another region committed if it is newer than this
// region's (last writer wins), and discards it otherwise.
func (n *Node) applyRepl(m sim.Message, out *sim.Outputs) {
	rp, ok := m.Body.(repl)
	if !ok {
		return
	}
	in, client := &rp.Row, rp.Client
	cur := n.rows[m.Key]
	if cur != nil && !newer(in, cur) {
		out.Observe(sim.Note(n.env.ID, "%s discards %s's update of %s (written at %s): its own row was written later, at %s by %s: last writer wins",
			n.env.Name, n.env.Names[client], m.Key, ms(in.Stamp), ms(cur.Stamp), n.env.Names[cur.Region]))
		n.resourceWrite(m.Key, client, m.Value, false, out)
		return
	}
	nr := *in
	n.rows[m.Key] = &nr
	cp := nr
	out.Write(sim.Message{Op: recRow, Key: m.Key, Body: &cp})
	out.Fsync()
	n.resourceWrite(m.Key, client, m.Value, true, out)
	out.Observe(sim.Observation{Kind: sim.ObsMetric, Client: sim.NoProc, By: sim.NoProc, Name: "value_" + m.Key, Value: nr.Value})
}

// stamp marks a row this region writes with its wall clock and its name.
func (n *Node) stamp(now sim.LocalTime, r *row) {
	r.Stamp, r.Region = now.Wall.Milliseconds(), n.env.ID
}

func ms(t int64) string { return sim.FormatDuration(time.Duration(t) * time.Millisecond) }

// newer: last writer wins, by the write's stamp and then the region.
func newer(a, b *row) bool {
	if a.Stamp != b.Stamp {
		return a.Stamp > b.Stamp
	}
	return a.Region > b.Region
}

// resourceWrite reports an update of a replicated row as a write to this
// region, accepted (applied) or refused (discarded).
func (n *Node) resourceWrite(name string, client sim.ProcID, update string, applied bool, out *sim.Outputs) {
	out.Observe(sim.Observation{Kind: sim.ObsResource, Client: client, By: sim.NoProc, Lock: name, Grant: update,
		Op: "write", Accepted: applied, Name: update})
}
