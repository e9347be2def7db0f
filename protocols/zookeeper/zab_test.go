package zookeeper

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Tests of the atomic broadcast on its own (Junqueira, Reed and Serafini,
// "Zab: High-performance broadcast for primary-backup systems", 2011; the
// ZooKeeper internals guide): writes are delivered in zxid order everywhere,
// the leader commits a proposal only after every earlier one, and a follower
// that missed a proposal resyncs.

var czxidOf = regexp.MustCompile(`(/q/n-\d{10})\(czxid 0x([0-9a-f]+)`)

// Writes from clients connected to the leader and to both followers (whose
// writes are forwarded) are applied by every server in the same order: each
// client's replies come in zxid order, the queue's sequence numbers follow the
// zxids with no gap and no name issued twice, and the servers end alike.
func TestBroadcastEveryServerAppliesTheWritesInZxidOrder(t *testing.T) {
	e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
	e.w.Network().SetDefault(sim.Link{Delay: time.Millisecond, Jitter: 2 * time.Millisecond, Dist: sim.DelayUniform})
	ds := []sim.ProcID{e.driver(0, 4*time.Second, time.Second), e.driver(1, 4*time.Second, time.Second),
		e.driver(2, 4*time.Second, time.Second)}
	for i := range 20 {
		for j, d := range ds {
			e.at(time.Duration(100+10*i+j)*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/q/n-", Opts: "SEQUENTIAL"})
		}
	}
	tr := e.w.Run()
	for _, d := range ds {
		var last int64
		created := 0
		for i := range tr.Len() {
			ev := tr.Event(i)
			if ev.Kind != sim.EvDeliver || ev.Proc != d {
				continue
			}
			if m := tr.Msg(ev); m.Op == RepCreated {
				created++
				if m.Num(ArgZxid) <= last {
					t.Errorf("%s: reply with zxid %s after %s", tr.Names[d], zxidText(m.Num(ArgZxid)), zxidText(last))
				}
				last = m.Num(ArgZxid)
			}
		}
		if created != 20 {
			t.Errorf("%s: %d creates answered, want 20", tr.Names[d], created)
		}
	}
	sameData(t, tr, "z1", "z2", "z3")
	nodes := czxidOf.FindAllStringSubmatch(data(tr, "z1"), -1)
	if len(nodes) != 60 {
		t.Fatalf("z1 holds %d queue nodes, want 60: %s", len(nodes), data(tr, "z1"))
	}
	var zxids []int64
	for i, n := range nodes { // Describe lists paths sorted: by sequence number
		if want := fmt.Sprintf("/q/n-%010d", i); n[1] != want {
			t.Fatalf("node %d is %s, want %s: a gap or a name issued twice", i, n[1], want)
		}
		z, _ := strconv.ParseInt(n[2], 16, 64)
		zxids = append(zxids, z)
	}
	if !slices.IsSorted(zxids) {
		t.Errorf("sequence numbers do not follow the zxids: %v", zxids)
	}
}

// The leader commits in zxid order: an acknowledgement of a later proposal
// commits nothing while an earlier one lacks a quorum, and the earlier one's
// quorum commits both, in order (Zab's primary order).
func TestBroadcastCommitsOnlyAfterEveryEarlierProposal(t *testing.T) {
	s := NewServer(ServerConfig{Servers: []sim.ProcID{0, 1, 2}})(sim.Env{ID: 0, Name: "z1", Names: []string{"z1", "z2", "z3"}}).(*Server)
	var out sim.Outputs // what the leader sends is not looked at here
	step := func(from sim.ProcID, m sim.Message) {
		s.Step(sim.LocalTime{}, sim.Input{Kind: sim.InMessage, From: from, Msg: m}, &out)
	}
	s.Step(sim.LocalTime{}, sim.Input{Kind: sim.InRestart}, &out) // leads a fresh ensemble
	if s.role != leading || !s.established {
		t.Fatalf("z1 starts %s (established %v), want an established leader", roleNames[s.role], s.established)
	}
	step(1, sim.Message{Op: opRequest, Body: &txn{Kind: txCreate, Path: "/a", Client: sim.NoProc}})
	step(1, sim.Message{Op: opRequest, Body: &txn{Kind: txCreate, Path: "/b", Client: sim.NoProc}})
	first, second := int64(1)<<32|1, int64(1)<<32|2
	if len(s.log) != 2 || s.log[0].Zxid != first || s.log[1].Zxid != second {
		t.Fatalf("log after two proposals: %v", s.log)
	}
	step(2, sim.Message{Op: opAck}.With(ArgZxid, second))
	if s.t.lastZxid != 0 {
		t.Fatalf("the second proposal has a quorum but the first has not: applied up to %s", zxidText(s.t.lastZxid))
	}
	step(1, sim.Message{Op: opAck}.With(ArgZxid, first))
	if s.t.lastZxid != second || s.t.nodes["/a"] == nil || s.t.nodes["/b"] == nil || len(s.log) != 0 {
		t.Fatalf("after the first's quorum: applied up to %s, log %v, /a %v, /b %v", zxidText(s.t.lastZxid), s.log,
			s.t.nodes["/a"] != nil, s.t.nodes["/b"] != nil)
	}
	if s.t.nodes["/a"].czxid != first || s.t.nodes["/b"].czxid != second {
		t.Errorf("czxids %s and %s, want %s and %s", zxidText(s.t.nodes["/a"].czxid), zxidText(s.t.nodes["/b"].czxid),
			zxidText(first), zxidText(second))
	}
}

// A follower that misses a proposal (here: every message from the leader is
// lost for 50 ms) never logs past the gap: at the next proposal it sees the
// gap, looks for the leader, and the leader syncs it with a snapshot; it ends
// with every write.
func TestBroadcastAFollowerThatMissedAProposalResyncs(t *testing.T) {
	e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
	d := e.driver(0, 4*time.Second, time.Second)
	e.act(100*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: e.servers[:1], B: e.servers[1:2], OneWay: true})
	e.at(110*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/a"})
	e.act(150*time.Millisecond, sim.Action{Kind: sim.ActHeal})
	e.at(300*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/b"})
	tr := e.w.Run()
	if got := replies(tr, d); !slices.Equal(got, []string{"CONNECTED", "CREATED /a", "CREATED /b"}) {
		t.Fatalf("d1's replies %q", got)
	}
	missed := notes(tr, "z2 missed a proposal")
	if len(missed) != 1 || !strings.Contains(missed[0], "before 0x100000003: it resyncs") {
		t.Fatalf("z2 should find the gap once, at /b's proposal (0x100000003): %q", missed)
	}
	if got := notes(tr, "z2 follows z1"); len(got) != 1 {
		t.Errorf("z2 should follow z1 again, once, after the resync: %q", got)
	}
	if notes(tr, "z3 missed") != nil || notes(tr, "leads the ensemble (epoch 2") != nil {
		t.Error("only z2 lost anything: no one else resyncs and no election is won")
	}
	sameData(t, tr, "z1", "z2", "z3")
	if !strings.Contains(data(tr, "z2"), "/a(") {
		t.Errorf("z2 lacks /a: %s", lastState(tr, "z2"))
	}
}

// Regression: the leader syncs a resyncing follower with what is committed and
// then sends it the proposals still outstanding (ZooKeeper's
// Leader.startForwarding). It used to send the snapshot alone: the follower
// then missed those proposals' commits and resynced again, and under steady
// writes it went on resyncing (14 times in this run, looking and refusing its
// clients most of the time) until the writes stopped.
func TestBroadcastAResyncedFollowerGetsTheOutstandingProposals(t *testing.T) {
	e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
	e.w.Network().SetDefault(sim.Link{Delay: 3 * time.Millisecond})
	d := e.driver(0, 4*time.Second, time.Second)
	e.act(100*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: e.servers[:1], B: e.servers[1:2], OneWay: true})
	e.act(105*time.Millisecond, sim.Action{Kind: sim.ActHeal})
	for i := range 100 { // a write every 2 ms, for 0.2 s
		e.at(time.Duration(90+2*i)*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/q/n-", Opts: "SEQUENTIAL"})
	}
	e.act(time.Second, sim.Action{Kind: sim.ActStop})
	tr := e.w.Run()
	if got := notes(tr, "z2 missed a proposal"); len(got) != 1 {
		t.Errorf("z2 resynced %d times, want once: %q", len(got), got[:min(len(got), 3)])
	}
	sameData(t, tr, "z1", "z2", "z3")
}

// A leader proposes nothing before a quorum has acknowledged its epoch: a
// write it takes meanwhile waits, and is proposed, with a zxid of the new
// epoch, once the leader is established.
func TestBroadcastALeaderHoldsWritesBackUntilEstablished(t *testing.T) {
	s := NewServer(ServerConfig{Servers: []sim.ProcID{0, 1, 2}})(sim.Env{ID: 0, Name: "z1", Names: []string{"z1", "z2", "z3"}}).(*Server)
	var out sim.Outputs // what the leader sends is not looked at here
	s.becomeLeader(sim.LocalTime{}, &out, 2)
	step := func(from sim.ProcID, m sim.Message) {
		s.Step(sim.LocalTime{}, sim.Input{Kind: sim.InMessage, From: from, Msg: m}, &out)
	}
	step(1, sim.Message{Op: opRequest, Body: &txn{Kind: txCreate, Path: "/a", Client: sim.NoProc}})
	if len(s.log) != 0 || len(s.waiting) != 1 {
		t.Fatalf("before its epoch is acknowledged the leader proposed %v (holding %d)", s.log, len(s.waiting))
	}
	step(1, sim.Message{Op: opAckLeader}.With(argEpoch, 2))
	if !s.established || len(s.log) != 1 || s.log[0].Zxid != zx(2, 1) || len(s.waiting) != 0 {
		t.Fatalf("established %v: log %v, holding %d; want /a proposed as 0x200000001", s.established, s.log, len(s.waiting))
	}
	step(2, sim.Message{Op: opAck}.With(ArgZxid, zx(2, 1)))
	if s.t.nodes["/a"] == nil {
		t.Error("/a was acknowledged by a quorum but not applied")
	}
}
