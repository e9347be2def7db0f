package redis

import (
	"maps"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// Replication, as Redis does it: asynchronous. A replica connects to its master
// with PSYNC and receives the whole dataset, then every write. The master answers
// its client first and ships the write after ReplLag (its event loop, a slow link);
// a master that crashes inside that window takes the write with it, and a replica
// promoted by a failover never had it. WAIT lets a client block until some replicas
// acknowledge a write; it does not make a lock safe, because acknowledged is not
// durable and the failover may choose another replica.
//
// A replica acknowledges what it has applied once a second (REPLCONF ACK, from
// replicationCron), and at once when the master asks with REPLCONF GETACK, which
// the master puts into the stream for each WAIT that has to block. A paused
// replica acknowledges nothing. A full resynchronisation empties the replica
// first: a replica of a master that restarted without persistence copies the
// empty dataset (the Redis replication docs, "Safety of replication when master
// has persistence turned off").

const (
	OpPSync     = "PSYNC"
	OpReplicate = "REPLICATE" // one write, in the replication stream
	OpReplAck   = "REPLCONF ACK"
	// OpGetAck is REPLCONF GETACK *, in the stream: answer with an ACK now.
	OpGetAck = "REPLCONF GETACK"
	// OpFullSync opens a full resynchronisation (+FULLRESYNC and the RDB that
	// follows): the replica empties its dataset and loads the master's.
	OpFullSync = "FULLRESYNC"
	// OpLinkLost is the model of a replication link that broke: a master
	// that does not know a replica (it restarted, and the replica's
	// connection died with the old process) answers the replica's ACK with it,
	// and the replica connects again with PSYNC, as after a closed connection.
	OpLinkLost = "LINK LOST"
	OpWait     = "WAIT"
	// CmdFailover is the command a failover sends to the replica it promotes.
	CmdFailover = "REPLICAOF NO ONE"

	timerRepl sim.TimerID = iota + 100
	timerWait
	timerReplCron
)

// replCronPeriod is how often a replica sends REPLCONF ACK unasked
// (replicationCron runs once a second).
const replCronPeriod = time.Second

type replica struct {
	id    sim.ProcID
	acked int64 // replication offset the replica has acknowledged
}

type waiter struct {
	client   sim.ProcID
	reqID    uint64
	offset   int64
	need     int64
	deadline time.Duration // monotonic
}

// isReplica reports whether the node serves as a replica now.
func (n *Node) isReplica() bool { return n.master != sim.NoProc }

// replicate queues a write for the replicas (a master's job).
func (n *Node) replicate(rec sim.Message, out *sim.Outputs) {
	if n.isReplica() || len(n.replicas) == 0 {
		return
	}
	n.offset++
	n.backlog = append(n.backlog, rec)
	if n.cfg.ReplLag <= 0 {
		n.ship(out)
		return
	}
	if !n.replArmed {
		n.replArmed = true
		out.SetTimer(timerRepl, n.cfg.ReplLag)
	}
}

// ship sends the backlog to every replica.
func (n *Node) ship(out *sim.Outputs) {
	n.replArmed = false
	for i, rec := range n.backlog {
		for _, r := range n.replicas {
			m := rec
			m.Op = OpReplicate + " " + rec.Op
			m.ID = uint64(n.offset - int64(len(n.backlog)) + int64(i) + 1) // the stream offset
			out.Send(r.id, m)
		}
	}
	n.backlog = n.backlog[:0]
}

// replication handles the replication protocol's messages; it reports whether the
// message was one of them.
func (n *Node) replication(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) bool {
	switch {
	case m.Op == OpPSync:
		n.addReplica(from, out)
	case len(m.Op) > len(OpReplicate) && m.Op[:len(OpReplicate)] == OpReplicate:
		if from != n.master {
			return true // a stream from a master this node no longer follows
		}
		rec := m
		rec.Op = m.Op[len(OpReplicate)+1:]
		rec.ID = 0
		if rec.Op == OpGetAck {
			// Redis answers GETACK with the offset processed before it: the
			// GETACK itself counts only from the next ACK on.
			n.sendAck(out)
			n.replOffset = max(n.replOffset, int64(m.ID))
			return true
		}
		n.applyRecord(now, rec, "replicated", out)
		n.replOffset = max(n.replOffset, int64(m.ID))
	case m.Op == OpFullSync:
		if from == n.master {
			n.flush(out)
			n.replOffset = m.Num(argOffset)
		}
	case m.Op == OpLinkLost:
		if from == n.master {
			out.Send(n.master, sim.Message{Op: OpPSync})
		}
	case m.Op == OpReplAck:
		known := false
		for i := range n.replicas {
			if n.replicas[i].id == from {
				n.replicas[i].acked, known = m.Num(argOffset), true
			}
		}
		if !known && !n.isReplica() {
			out.Send(from, sim.Message{Op: OpLinkLost})
			return true
		}
		n.answerWaits(now, out)
	default:
		return false
	}
	return true
}

func (n *Node) addReplica(id sim.ProcID, out *sim.Outputs) {
	known := false
	for i := range n.replicas {
		if n.replicas[i].id == id {
			known, n.replicas[i].acked = true, 0 // a replica that restarted: sync it again
		}
	}
	if !known {
		n.replicas = append(n.replicas, replica{id: id})
	}
	// A full resynchronisation: the replica empties its dataset, then loads the
	// master's whole dataset, at the master's current offset.
	out.Send(id, sim.Message{Op: OpFullSync}.With(argOffset, n.offset))
	for _, k := range n.sortedKeys() {
		m := n.record(k, n.keys[k])
		m.Op, m.ID = OpReplicate+" "+m.Op, uint64(n.offset)
		out.Send(id, m)
	}
	for _, m := range n.zrecords() {
		m.Op, m.ID = OpReplicate+" "+m.Op, uint64(n.offset)
		out.Send(id, m)
	}
	out.Observe(n.note("%s replicates to %s (full sync)", n.env.Name, n.env.Names[id]))
}

// sendAck is a replica's REPLCONF ACK: the stream offset it has applied.
func (n *Node) sendAck(out *sim.Outputs) {
	out.Send(n.master, sim.Message{Op: OpReplAck}.With(argOffset, n.replOffset))
}

// flush empties a replica's dataset for a full resynchronisation (Redis's
// emptyData before loading the master's RDB), on its disk too.
func (n *Node) flush(out *sim.Outputs) {
	for _, k := range n.sortedKeys() {
		e := n.keys[k]
		delete(n.keys, k)
		out.Observe(sim.Observation{Kind: sim.ObsRemoved, Client: e.owner, By: sim.NoProc, Lock: k, Grant: e.value, Reason: "resync"})
		n.writeDel(k, out)
	}
	for _, k := range slices.Sorted(maps.Keys(n.zsets)) {
		delete(n.zsets, k)
		n.writeDel(k, out)
	}
	n.armExpiry(out)
}

// writeDel logs a key's deletion on the node's own disk (per policy).
func (n *Node) writeDel(k string, out *sim.Outputs) {
	if n.cfg.Persistence != PersistNone {
		out.Write(sim.Message{Op: recDel, Key: k})
		n.syncPolicy(out)
	}
}

// applyRecord applies a SET or DEL record (from the stream or the disk).
func (n *Node) applyRecord(now sim.LocalTime, r sim.Message, reason string, out *sim.Outputs) {
	switch r.Op {
	case recSet:
		e := entry{value: r.Value, expires: r.Has(argExpireAt), expireAt: n.fromWall(now, time.Duration(r.Num(argExpireAt))), owner: sim.ProcID(r.Num(argOwner)), lock: r.Opts == "NX"}
		n.keys[r.Key] = e
		out.Observe(sim.Observation{Kind: sim.ObsStored, Client: e.owner, By: sim.NoProc, Lock: r.Key, Grant: e.value, Reason: reason})
		n.persist(r.Key, e, out)
		n.armExpiry(out)
	case recZAdd:
		member, m := n.applyZRecord(r)
		n.zset(r.Key, member, m, out) // to this node's own disk and replicas
	case recDel:
		if _, ok := n.zsets[r.Key]; ok {
			// A replica reports no grants, so it reports no grant's end either.
			delete(n.zsets, r.Key)
			if n.cfg.Persistence != PersistNone {
				out.Write(sim.Message{Op: recDel, Key: r.Key})
				n.syncPolicy(out)
			}
			return
		}
		if e, ok := n.keys[r.Key]; ok {
			delete(n.keys, r.Key)
			out.Observe(sim.Observation{Kind: sim.ObsRemoved, Client: e.owner, By: sim.NoProc, Lock: r.Key, Grant: e.value, Reason: reason})
			if n.cfg.Persistence != PersistNone {
				out.Write(sim.Message{Op: recDel, Key: r.Key})
				n.syncPolicy(out)
			}
			n.armExpiry(out)
		}
	}
}

// wait runs WAIT numreplicas timeout(ms): it is answered when enough replicas
// have acknowledged the stream up to where it was after the calling client's
// previous command (Redis's c->woff, not the whole stream: a client whose own
// write was acknowledged is answered at once, whatever others wrote since), or
// when the timeout (0: none) runs out. A replica refuses it. A WAIT that blocks
// puts a REPLCONF GETACK into the stream, which the client's next WAIT then
// waits for too, as in Redis. Redis's stream also carries a PING every 10 s,
// which the model's does not (docs/fidelity.md).
func (n *Node) wait(now sim.LocalTime, from sim.ProcID, woff int64, m sim.Message, out *sim.Outputs) {
	reply := func(r sim.Message) { r.ID = m.ID; out.Send(from, r) }
	if n.isReplica() {
		reply(errReply("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a " +
			"replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."))
		return
	}
	var buf [maxArgs]word
	words := args(m, buf[:0])
	if len(words) != 2 {
		reply(errReply("ERR wrong number of arguments for 'wait' command"))
		return
	}
	need, ok := words[0].int()
	if !ok {
		reply(errReply(errNotInteger))
		return
	}
	ms, ok := words[1].int()
	switch {
	case !ok:
		reply(errReply("ERR timeout is not an integer or out of range"))
		return
	case ms < 0:
		reply(errReply("ERR timeout is negative"))
		return
	}
	w := waiter{client: from, reqID: m.ID, offset: woff, need: need, deadline: -1}
	if ms > 0 {
		w.deadline = addSat(now.Mono, durMs(ms))
	}
	n.waits = append(n.waits, w)
	if n.answerWaits(now, out) {
		// The WAIT blocks: ask the replicas for an ACK now, through the stream
		// (beforeSleep's replicationRequestAckFromSlaves), after the client's
		// offset was taken, so that its next command's offset includes it.
		n.replicate(sim.Message{Op: OpGetAck}, out)
	}
}

// answerWaits answers the WAITs now satisfied or timed out, and reports
// whether any is still blocked.
func (n *Node) answerWaits(now sim.LocalTime, out *sim.Outputs) bool {
	kept := n.waits[:0]
	next := time.Duration(-1)
	for _, w := range n.waits {
		acked := int64(0)
		for _, r := range n.replicas {
			if r.acked >= w.offset {
				acked++
			}
		}
		if acked >= w.need || (w.deadline >= 0 && now.Mono >= w.deadline) {
			out.Send(w.client, sim.Message{Op: ReplyInt, ID: w.reqID}.With(ArgInt, acked))
			continue
		}
		kept = append(kept, w)
		if w.deadline >= 0 && (next < 0 || w.deadline < next) {
			next = w.deadline
		}
	}
	n.waits = kept
	if next >= 0 {
		out.SetTimer(timerWait, next-now.Mono) // the earliest pending deadline
	} else {
		out.CancelTimer(timerWait)
	}
	return len(kept) > 0
}

// promote turns a replica into a master (a failover).
func (n *Node) promote(out *sim.Outputs) {
	if !n.isReplica() {
		out.Observe(n.note("%s is already a master", n.env.Name))
		return
	}
	out.Observe(n.note("%s is promoted to master (failover): it stops following %s", n.env.Name, n.env.Names[n.master]))
	n.master = sim.NoProc
}

func (n *Node) note(format string, a ...any) sim.Observation {
	return sim.Note(sim.NoProc, format, a...)
}
