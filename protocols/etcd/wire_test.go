package etcd

import (
	"testing"

	"github.com/locksim/locksim/sim"
)

// Each payload's Clone is deep (sim.Cloner, issue 18): changing a copy changes
// nothing in the original, so the kernel's copies on send, delivery and disk
// write keep every member's log and disk its own.
func TestPayloadClonesShareNothing(t *testing.T) {
	cm := &cmd{Key: "L/1"}
	app := &appMsg{Term: 2, Entries: entries{{Term: 2, Index: 1, Cmd: cm}, {Term: 2, Index: 2}}}
	c := app.Clone().(*appMsg)
	c.Entries[0].Cmd.Key = "changed"
	c.Entries[1].Index = 9
	if cm.Key != "L/1" || app.Entries[1].Index != 2 {
		t.Fatal("an append's clone shares memory with the original")
	}
	es := entries{{Cmd: cm}}
	ec := es.Clone().(entries)
	ec[0].Cmd.Key = "changed"
	if cm.Key != "L/1" {
		t.Fatal("an entries record's clone shares a command with the original")
	}
	ka := &keepAlive{Reply: sim.Message{Op: "x", Body: &voteMsg{Term: 1}}}
	kc := ka.Clone().(*keepAlive)
	kc.Reply.Body.(*voteMsg).Term = 9
	if ka.Reply.Body.(*voteMsg).Term != 1 {
		t.Fatal("a keepalive's clone shares its reply's payload with the original")
	}
	for _, p := range []sim.Cloner{&appResp{Term: 1}, &voteMsg{Term: 1}, cm} {
		if p.Clone() == any(p) {
			t.Fatalf("%T's clone is the original", p)
		}
	}
}
