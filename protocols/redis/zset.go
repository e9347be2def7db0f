package redis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim"
)

// Sorted sets, as the Redis command reference describes ZADD and ZSCORE
// (https://redis.io/docs/latest/commands/zadd/). A sorted set maps members to
// float scores; ZADD adds or updates members, and its flags make the write
// conditional:
//
//   - XX: only update members that already exist; never add new ones.
//   - NX: only add new members; never update existing ones.
//   - GT / LT: only update an existing member if the new score is greater / less
//     than its current one. They do not prevent adding a new member.
//   - CH: reply with the number of members changed (added, or updated to a
//     different score) instead of the number added.
//
// NX and XX are exclusive, and so are GT, LT and NX; such a command is an error.
// INCR makes ZADD act like ZINCRBY: one score-member pair, the score added to
// the member's, and the reply the new score (nil when a flag stopped it).
//
// The node knows nothing of locks built on these commands, except one encoding:
// lostinsoba's sorted-set mutex ("Distributed locks: NoSQL", https://lostinsoba.com/),
// where a member's score 0 means released and 1 acquired, and the flip is a
// ZADD XX CH. Like SET NX for string keys, a ZADD XX that moves a member from 0
// to 1 is reported as a grant of the member (the lock) to the caller, and any
// later change of that member, or the deletion of its key, ends the grant. The
// state-transition lock's claim is the other encoding the node reports: a ZADD
// that its client marks as a JobClaim and that moves a member from below 1 (new
// 0, failed -1, or absent) to 1 (in progress) grants the job to the caller,
// until the member changes again (done, a release, a reaper's reset). The mark
// is the client telling the node which encoding it uses: the same ZADD GT CH 1
// is a time bucket's claim for bucket 1, which grants nothing. Other
// sorted-set writes (a time bucket's ZADD GT) grant nothing.
//
// The model keeps sorted-set keys and string keys apart: a string command other
// than DEL, SET (which replaces it) and SETNX on a sorted-set key (and ZADD or
// ZSCORE on a string key) gets Redis's WRONGTYPE error. Sorted sets never expire
// in the model: EXPIRE on one is refused (real Redis times it; no lock client
// here does), a deliberate difference the fidelity suite pins.

// zmember is one member of a sorted set.
type zmember struct {
	score   float64
	owner   sim.ProcID // who last changed it (bookkeeping for observations)
	granted bool       // a mutex member at 1, granted to owner
}

// ErrWrongType is Redis's reply to a command on a key of the other type.
const ErrWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"

func errReply(msg string) sim.Message { return sim.Message{Op: ReplyErr, Value: msg} }

// FormatScore is a score's text form, as Redis 7.0 replies it (printf's %.17g):
// "1", "-1", "475000", "1.5", "inf", and "0.10000000000000001" for 0.1 (Redis
// 7.2 prints the shortest form, "0.1"; the fidelity suite compares with 7.0).
func FormatScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// parseScore reads a score as Redis does (getDoubleFromObject): a float, or
// inf, +inf, -inf; never NaN, and never a number too large for a double.
func parseScore(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// zadd runs ZADD key [NX|XX] [GT|LT] [CH] score member [score member ...], its
// checks in the order Redis makes them (t_zset.c, zaddGenericCommand).
func (n *Node) zadd(from sim.ProcID, k, opts string, mark zmark, out *sim.Outputs) sim.Message {
	claim := mark.claim
	words := strings.Fields(opts)
	var nx, xx, gt, lt, ch, incr bool
	i := 0
flags:
	for ; i < len(words); i++ {
		switch strings.ToUpper(words[i]) {
		case "NX":
			nx = true
		case "XX":
			xx = true
		case "GT":
			gt = true
		case "LT":
			lt = true
		case "CH":
			ch = true
		case "INCR":
			incr = true
		default:
			break flags
		}
	}
	pairs := words[i:]
	switch {
	case len(pairs) == 0 || len(pairs)%2 != 0:
		return errReply(errSyntax)
	case nx && xx:
		return errReply("ERR XX and NX options at the same time are not compatible")
	case gt && nx || lt && nx || gt && lt:
		return errReply("ERR GT, LT, and/or NX options at the same time are not compatible")
	case incr && len(pairs) > 2:
		return errReply("ERR INCR option supports a single increment-element pair")
	}
	scores := make([]float64, 0, len(pairs)/2)
	for j := 0; j < len(pairs); j += 2 {
		f, ok := parseScore(pairs[j])
		if !ok {
			return errReply("ERR value is not a valid float")
		}
		scores = append(scores, f)
	}
	if _, isString := n.keys[k]; isString {
		return errReply(ErrWrongType)
	}
	z := n.zsets[k]
	if z == nil && !xx {
		z = map[string]zmember{}
		n.zsets[k] = z
	}
	added, changed, processed := int64(0), int64(0), 0
	var last float64
	for j, score := range scores {
		member := pairs[2*j+1]
		cur, exists := z[member]
		if incr && exists {
			score += cur.score
			if math.IsNaN(score) {
				return errReply("ERR resulting score is not a number (NaN)")
			}
		}
		switch {
		case !exists && xx, exists && nx:
			continue
		case !exists:
			added++
			m := zmember{score: score, owner: from, granted: claim && score == 1}
			if m.granted {
				n.reportGrant(from, k, member, out)
			}
			n.zset(k, member, m, out)
		case lt && score >= cur.score, gt && score <= cur.score:
			continue
		case score != cur.score:
			changed++
			n.zupdate(from, k, member, cur, score, xx && cur.score == 0 || claim && cur.score < 1, mark.reset, out)
		}
		processed++
		last = score
	}
	if len(z) == 0 {
		delete(n.zsets, k)
	}
	switch {
	case incr && processed == 0:
		return sim.Message{Op: ReplyNil}
	case incr:
		return sim.Message{Op: ReplyBulk, Value: FormatScore(last)}
	case ch:
		return intReply(added + changed)
	}
	return intReply(added)
}

// zupdate changes an existing member's score, and reports the lock encodings'
// grants: XX from 0 to 1 (the mutex's flip), or a job's claim from below 1 to
// 1, grants the member to the caller (grants says the write may); any change
// of a granted member ends its grant. A reaper's reset (reset: the write is
// marked JobReset) ends another worker's claim as a recovery: the protocol's
// own timeout taking a stuck job back, reported as sim.ReasonReset.
func (n *Node) zupdate(from sim.ProcID, k, member string, cur zmember, score float64, grants, reset bool, out *sim.Outputs) {
	m := zmember{score: score, owner: from}
	if cur.granted {
		why := ownerReason(from, entry{owner: cur.owner})
		if reset && from != cur.owner {
			why = sim.ReasonReset
		}
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: cur.owner, By: from,
			Lock: member, Grant: zgrant(k), Reason: why})
	}
	if grants && score == 1 {
		m.granted = true
		n.reportGrant(from, k, member, out)
	}
	n.zset(k, member, m, out)
}

func (n *Node) reportGrant(client sim.ProcID, k, member string, out *sim.Outputs) {
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: client, By: sim.NoProc,
		Lock: member, Grant: zgrant(k)})
}

// JobClaim marks a ZADD as the state-transition lock's claim of a job (the
// message's Body), so that the node reports a claim that moves the job to in
// progress (1) as a grant.
type JobClaim struct{}

// JobReset marks a ZADD as the state-transition lock's reaper resetting a job
// it found stuck in progress (the message's Body), so that the node reports
// the end of the claim it overwrites as a reset (sim.ReasonReset), not as
// another client's deletion: the recovery the protocol is built to make.
type JobReset struct{}

// zmark is what the client's mark on a ZADD says: a job's claim, or a
// reaper's reset.
type zmark struct{ claim, reset bool }

// zgrant names a sorted-set mutex grant in observations: the member at score 1
// in key k.
func zgrant(k string) string { return "score 1 in " + k }

// zset stores a member and hands its record to the disk and the replicas.
func (n *Node) zset(k, member string, m zmember, out *sim.Outputs) {
	n.zsets[k][member] = m
	rec := zrecord(k, member, m)
	n.replicate(rec, out)
	if n.cfg.Persistence != PersistNone {
		out.Write(rec)
		n.syncPolicy(out)
	}
}

func zrecord(k, member string, m zmember) sim.Message {
	r := sim.Message{Op: recZAdd, Key: k, Value: member, Opts: FormatScore(m.score)}.With(argOwner, int64(m.owner))
	if m.granted {
		r = r.With(argGranted, 1)
	}
	return r
}

// zscore runs ZSCORE key member.
func (n *Node) zscore(k, opts string) sim.Message {
	words := strings.Fields(opts)
	if len(words) != 1 {
		return errReply("ERR wrong number of arguments for 'zscore' command")
	}
	if _, isString := n.keys[k]; isString {
		return errReply(ErrWrongType)
	}
	m, ok := n.zsets[k][words[0]]
	if !ok {
		return sim.Message{Op: ReplyNil}
	}
	return sim.Message{Op: ReplyBulk, Value: FormatScore(m.score)}
}

// zdel deletes a sorted-set key (DEL), ending the grants of its members.
func (n *Node) zdel(by sim.ProcID, k string, out *sim.Outputs) {
	n.zdrop(by, k, sim.ReasonDeleted, out)
	n.replicate(sim.Message{Op: recDel, Key: k}, out)
	if n.cfg.Persistence != PersistNone {
		out.Write(sim.Message{Op: recDel, Key: k})
		n.syncPolicy(out)
	}
}

// zdrop forgets a sorted-set key; a granted member's grant ends.
func (n *Node) zdrop(by sim.ProcID, k, reason string, out *sim.Outputs) {
	z := n.zsets[k]
	delete(n.zsets, k)
	for _, member := range slices.Sorted(maps.Keys(z)) {
		if m := z[member]; m.granted {
			r := reason
			if by == m.owner {
				r = sim.ReasonReleased
			}
			out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: m.owner, By: by,
				Lock: member, Grant: zgrant(k), Reason: r})
		}
	}
}

// applyZRecord applies a sorted-set member's record (from the disk or the
// replication stream).
func (n *Node) applyZRecord(r sim.Message) (string, zmember) {
	score, _ := parseScore(r.Opts)
	m := zmember{score: score, owner: sim.ProcID(r.Num(argOwner)), granted: r.Has(argGranted) && r.Num(argGranted) == 1}
	if n.zsets[r.Key] == nil {
		n.zsets[r.Key] = map[string]zmember{}
	}
	n.zsets[r.Key][r.Value] = m
	return r.Value, m
}

// zrecovered reports the granted members a restart brought back, so the checker
// knows the grant survived.
func (n *Node) zrecovered(out *sim.Outputs) {
	for _, k := range n.sortedZKeys() {
		z := n.zsets[k]
		for _, member := range slices.Sorted(maps.Keys(z)) {
			if m := z[member]; m.granted {
				out.Observe(sim.Observation{Kind: sim.ObsStored, Client: m.owner, By: sim.NoProc, Lock: member,
					Grant: zgrant(k), Reason: sim.ReasonRecovered})
			}
		}
	}
}

func (n *Node) sortedZKeys() []string { return slices.Sorted(maps.Keys(n.zsets)) }

// zrecords is the sorted sets as records, for a replica's full sync.
func (n *Node) zrecords() []sim.Message {
	var rs []sim.Message
	for _, k := range n.sortedZKeys() {
		z := n.zsets[k]
		for _, member := range slices.Sorted(maps.Keys(z)) {
			rs = append(rs, zrecord(k, member, z[member]))
		}
	}
	return rs
}

// describeZSets lists the sorted sets: " locks={L:1}".
func (n *Node) describeZSets(b *strings.Builder) {
	for _, k := range n.sortedZKeys() {
		z := n.zsets[k]
		members := slices.Sorted(maps.Keys(z))
		parts := make([]string, len(members))
		for i, member := range members {
			parts[i] = fmt.Sprintf("%s:%s", member, FormatScore(z[member].score))
		}
		fmt.Fprintf(b, " %s={%s}", k, strings.Join(parts, " "))
	}
}
