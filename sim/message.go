package sim

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Message is what processes send each other, what a client is commanded to do, and
// what a process writes to its disk. It is one flat value type rather than an
// interface, so sending one allocates nothing (boxing a struct in an interface would),
// and so every message has one text form. Protocols pick Op names as their sources
// spell them ("SET", "(nil)", "EVAL").
type Message struct {
	Op    string // command or reply name: "SET", "+OK", "(integer)"
	Key   string // the key, lock or resource it is about
	Value string // a value: the lock owner's random value, a read result
	Opts  string // option words as the protocol's docs write them: "NX PX"
	ID    uint64 // request id: pairs a reply with its request; not part of the text
	// Body is a structured payload (a log entry, a snapshot, a statement); nil on
	// every hot path. It is a plain value, or implements Cloner (see Clone).
	Body any
	// Background marks traffic that keeps something alive rather than moving the
	// story on: heartbeats, pings and their acks, keepalives, lease renewals. The
	// protocol that sends the message declares it (InBackground); the trace keeps
	// it with the message, and viewers fold such rows on request (the TUI's quiet
	// mode). It changes nothing in the run and is not part of the text form.
	Background bool

	// nums are the message's numbers, read and written through the Arg names the
	// protocols declare (see Arg); shown says which belong to the text form.
	nums  [2]int64
	shown [2]bool
}

// Arg names one of the two numbers a message can carry, for what it holds in
// one protocol's messages: a SET's TTL in milliseconds, a ZooKeeper zxid, a Raft
// term, a fencing token. Each protocol declares its names beside its Op names
// (`const ArgZxid = sim.Num1 // ...`) and reads and writes numbers only through
// them, so `m.Num(ArgZxid)` says what it reads. The representation stays two
// plain slots: a message stays a flat value of fixed size, and its text form
// writes the first number before the second.
type Arg uint8

// The two slots a protocol names. Num1 is written first in the text form.
const (
	Num1 Arg = iota
	Num2
)

// Names the kernel's own callers share: a command's TTL (a scenario's ttl=,
// read by the lock clients) and an operation's fencing token (Belief.Send, read
// by the protected resource).
const (
	ArgTTL   = Num1 // a TTL in whole milliseconds
	ArgToken = Num1 // a fencing token
)

// With returns m carrying v as a, written in the text form.
func (m Message) With(a Arg, v int64) Message { m.nums[a], m.shown[a] = v, true; return m }

// Carrying returns m carrying v as a, left out of the text form: for a number
// the message already says in words (its Value), where the text stays as it is.
func (m Message) Carrying(a Arg, v int64) Message { m.nums[a] = v; return m }

// Num is the number m carries as a (0 when it carries none).
func (m Message) Num(a Arg) int64 { return m.nums[a] }

// Has reports whether m carries a number as a that its text shows (set by With).
func (m Message) Has(a Arg) bool { return m.shown[a] }

// String is the message's one text form: "SET L c1#1 NX PX 10000".
func (m Message) String() string {
	var b strings.Builder
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	add(m.Op)
	add(m.Key)
	add(m.Value)
	add(m.Opts)
	for i, n := range m.nums {
		if m.shown[i] {
			add(strconv.FormatInt(n, 10))
		}
	}
	if s, ok := m.Body.(interface{ String() string }); ok {
		add(s.String())
	}
	return b.String()
}

// InBackground returns m marked as background traffic (see Message.Background).
func (m Message) InBackground() Message { m.Background = true; return m }

// Cloner is a payload that holds memory its sender could still change: a
// pointer, a slice, a map. Clone returns a deep copy. The kernel calls it (through
// Message.Clone) whenever a message changes hands, so that no two processes, and
// no process and the trace, ever share a payload: a leader's logged transaction
// is not the object in its followers' logs, on three disks and in the trace.
type Cloner interface {
	// Clone returns a deep copy of the payload.
	Clone() any
}

// Clone returns m with a payload of its own. The kernel calls it when a process
// sends m (Outputs.Send) or writes it to disk (Outputs.Write), and when it hands
// m over: each delivery (a duplicated message's two deliveries each get one), a
// command, the records a restarted process reads back. A Cloner's Clone makes the
// copy; a plain value (one holding no pointer, slice, map, interface, channel or
// function) is copied with the message. Any other payload would be shared, so
// Clone panics: the protocol that sent it has a bug to fix.
func (m Message) Clone() Message {
	if m.Body != nil { // small enough to inline: most messages carry no payload
		m.Body = cloneBody(m.Op, m.Body)
	}
	return m
}

// ownBody gives m a payload of its own, as Clone does, in place.
func (m *Message) ownBody() {
	if m.Body != nil {
		m.Body = cloneBody(m.Op, m.Body)
	}
}

func cloneBody(op string, body any) any {
	if c, ok := body.(Cloner); ok {
		return c.Clone()
	}
	if !plain(reflect.TypeOf(body)) {
		panic(fmt.Sprintf("sim: message %q carries a %T, which would share memory between processes: "+
			"send a value, or give %T a Clone method (sim.Cloner)", op, body, body))
	}
	return body
}

// plain reports whether a value of type t is copied whole by assignment.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return false
	}
	return true // booleans, numbers, strings
}
