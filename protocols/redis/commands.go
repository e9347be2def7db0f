package redis

import (
	"crypto/sha1"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Commands and replies, spelled as Redis spells them.
const (
	OpSet     = "SET"
	OpSetNX   = "SETNX"
	OpExpire  = "EXPIRE"
	OpPExpire = "PEXPIRE"
	OpPTTL    = "PTTL"
	OpGet     = "GET"
	OpDel     = "DEL"
	OpIncr    = "INCR"
	// OpGetSet is GETSET key value: set the value and return the old one, in
	// one step (deprecated since Redis 6.2 for SET key value GET; the old SETNX
	// page's lock uses it).
	OpGetSet = "GETSET"
	// OpCAD is the release script of the Redis docs (ReleaseScript): delete the
	// key only if it still holds the caller's value.
	OpCAD = "EVAL compare-and-delete"
	// OpCAX is ExtendScript: PEXPIRE the key only if it still holds the caller's
	// value.
	OpCAX = "EVAL compare-and-extend"
	// Sorted sets (zset.go). Their arguments after the key travel in Opts, as
	// Redis writes them: ZADD locks XX CH 1 L is {Op: OpZAdd, Key: "locks",
	// Opts: "XX CH 1 L"}.
	OpZAdd   = "ZADD"
	OpZScore = "ZSCORE"

	ReplyOK   = "+OK"
	ReplyNil  = "(nil)"
	ReplyInt  = "(integer)"
	ReplyBulk = "(bulk)"
	ReplyErr  = "(error)"
)

// The numbers Redis messages carry (sim.Arg), written after the option words.
const (
	// ArgTime is a command's time argument: SET's PX and PEXPIRE's milliseconds
	// (sim.ArgTTL, as a scenario's ttl= gives it), EXPIRE's seconds.
	ArgTime = sim.ArgTTL
	// ArgInt is an (integer) reply's value: 1 or 0 for a script, INCR's counter,
	// WAIT's count of replicas.
	ArgInt = sim.Num1
	// ArgReplicas and ArgWaitTimeout are WAIT's numreplicas and timeout (ms).
	ArgReplicas, ArgWaitTimeout = sim.Num1, sim.Num2
	// argOffset is a replica's REPLCONF ACK: the replication offset it has.
	argOffset = sim.Num1
	// argExpireAt and argOwner are a SET record's absolute expiry (PEXPIREAT; absent
	// when the key never expires) and the client that set the key.
	argExpireAt, argOwner = sim.Num1, sim.Num2
	// argGranted is a ZADD record's mark: 1 when the member is a granted mutex.
	argGranted = sim.Num1
)

// The scripts a lock client sends with EVAL, as the Redis docs write the release
// ("Distributed Locks with Redis") and as lock libraries write the extension
// (redsync's touch, Redisson's renewal). The node runs what they do; the
// fidelity suite sends the text itself to a real server.
const (
	ReleaseScript = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`
	ExtendScript = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("pexpire",KEYS[1],ARGV[2])
else
    return 0
end`
)

// Disk records: the key's resulting state, as an AOF rewritten with absolute expiry
// times (PEXPIREAT) would hold it.
const (
	recSet = "SET"
	recDel = "DEL"
	// recZAdd is one sorted-set member's state: Key, member in Value, score in
	// Opts, argOwner, and argGranted = 1 when the member is a granted mutex (zset.go).
	recZAdd = "ZADD"
)

// Error replies, as Redis 7.0 words them.
const (
	errSyntax      = "ERR syntax error"
	errNotInteger  = "ERR value is not an integer or out of range"
	errOverflow    = "ERR increment or decrement would overflow"
	errExpireGTLT  = "ERR GT and LT options at the same time are not compatible"
	errExpireNXXX  = "ERR NX and XX, GT or LT options at the same time are not compatible"
	errNotModelled = "ERR locksim's Redis node does not model "
)

// args appends to buf a command's words after its key (and value), as the
// message's text shows them: its option words, then its numbers. The lock
// clients send SET L v NX PX 10000 as {Opts: "NX PX", ArgTime: 10000}; a command
// line parsed by Command carries every word in Opts. The node reads both the
// same way. Given a buffer on the caller's stack it allocates nothing: the
// node parses every command it receives.
func args(m sim.Message, buf []word) []word {
	for f := range strings.FieldsSeq(m.Opts) {
		buf = append(buf, word{text: f})
	}
	for _, a := range [...]sim.Arg{sim.Num1, sim.Num2} {
		if m.Has(a) {
			buf = append(buf, word{num: m.Num(a), isNum: true})
		}
	}
	return buf
}

// maxArgs is the words a command usually has after its key: args' buffer.
const maxArgs = 8

// word is one of a command's words after its key: a word of its Opts, or one of
// its numbers, kept as the number (its decimal text, which Redis would parse
// back to exactly this number, is made only when a reply quotes it).
type word struct {
	text  string
	num   int64
	isNum bool
}

// String is the word as the command's text shows it.
func (w word) String() string {
	if w.isNum {
		return strconv.FormatInt(w.num, 10)
	}
	return w.text
}

// keyword is the word in upper case, for comparing with option names (a
// number is never one).
func (w word) keyword() string {
	if w.isNum {
		return ""
	}
	return strings.ToUpper(w.text)
}

// int reads the word as an integer, as Redis does (parseInt).
func (w word) int() (int64, bool) {
	if w.isNum {
		return w.num, true
	}
	return parseInt(w.text)
}

// parseInt reads an integer as Redis does (string2ll): decimal digits with an
// optional minus, no plus sign, no leading zeros, no "-0", within int64.
func parseInt(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(s) > 20 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

func errExpireTime(cmd string) sim.Message {
	return errReply("ERR invalid expire time in '" + strings.ToLower(cmd) + "' command")
}

// unixEpochMs is the node's wall clock reading 0 as Redis reads it, Unix time
// in milliseconds (2026-01-01T00:00:00Z): Redis's expiry times are absolute
// Unix times, so EXAT 1 is long past and a TTL near the int64 limit overflows
// when added to the clock, as on a real server.
const unixEpochMs = 1_767_225_600_000

// wallMs is the node's wall clock as Unix time in whole milliseconds, the unit
// of Redis's expiry times.
func wallMs(now sim.LocalTime) int64 { return unixEpochMs + now.Wall.Milliseconds() }

// msToWall is an absolute Unix time in milliseconds as a reading of the node's
// wall clock, saturating where nanoseconds run out (292 years: never).
func msToWall(ms int64) time.Duration {
	rel := ms - unixEpochMs
	if ms < 0 && rel > 0 { // wrapped around: long past
		return math.MinInt64
	}
	if rel > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	if rel < math.MinInt64/int64(time.Millisecond) {
		return math.MinInt64
	}
	return time.Duration(rel) * time.Millisecond
}

// durMs is a duration of ms milliseconds, saturating.
func durMs(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// addSat is t+d, saturating instead of overflowing for absurd times.
func addSat(t, d time.Duration) time.Duration {
	if d > 0 && t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

// setOptions is what SET's options ask for (t_string.c,
// parseExtendedStringArgumentsOrReply).
type setOptions struct {
	nx, xx, get, keepTTL bool
	unit                 string // "", "EX", "PX", "EXAT" or "PXAT"
	expire               word   // the expire argument, unparsed
}

// parseSet reads SET's options, case-insensitively, refusing what Redis refuses:
// NX with XX, two different expiries, KEEPTTL with an expiry, an option without
// its argument.
func parseSet(words []word) (setOptions, bool) {
	var o setOptions
	for i := 0; i < len(words); i++ {
		switch w := words[i].keyword(); {
		case w == "NX" && !o.xx:
			o.nx = true
		case w == "XX" && !o.nx:
			o.xx = true
		case w == "GET":
			o.get = true
		case w == "KEEPTTL" && o.unit == "":
			o.keepTTL = true
		case (w == "EX" || w == "PX" || w == "EXAT" || w == "PXAT") && !o.keepTTL &&
			(o.unit == "" || o.unit == w) && i+1 < len(words):
			o.unit, o.expire = w, words[i+1]
			i++
		default:
			return o, false
		}
	}
	return o, true
}

// setExpiry is SET's expiry as a deadline on the node's wall clock
// (getExpireMillisecondsOrReply): the argument must be a positive integer, and
// neither the unit conversion nor adding the Unix clock may overflow. A
// relative TTL counts from the node's exact clock reading.
func setExpiry(now sim.LocalTime, o setOptions) (time.Duration, bool) {
	v, _ := o.expire.int()
	seconds := o.unit == "EX" || o.unit == "EXAT"
	if v <= 0 || (seconds && v > math.MaxInt64/1000) {
		return 0, false
	}
	if seconds {
		v *= 1000
	}
	if o.unit == "EXAT" || o.unit == "PXAT" {
		return msToWall(v), true
	}
	if v > math.MaxInt64-wallMs(now) {
		return 0, false
	}
	return addSat(now.Wall, durMs(v)), true
}

// set runs SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL],
// checking in Redis's order: the options, the expire time, GET's type check,
// then NX or XX against the key.
func (n *Node) set(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) sim.Message {
	var buf [maxArgs]word
	o, ok := parseSet(args(m, buf[:0]))
	if !ok {
		return errReply(errSyntax)
	}
	var deadline time.Duration
	if o.unit != "" {
		if _, isInt := o.expire.int(); !isInt {
			return errReply(errNotInteger)
		}
		if deadline, ok = setExpiry(now, o); !ok {
			return errExpireTime(OpSet)
		}
		deadline = n.fromWall(now, deadline)
	}
	_, isZSet := n.zsets[m.Key]
	if o.get && isZSet {
		return errReply(ErrWrongType)
	}
	old, exists := n.keys[m.Key]
	reply := sim.Message{Op: ReplyOK}
	if o.get {
		reply = sim.Message{Op: ReplyNil}
		if exists {
			reply = sim.Message{Op: ReplyBulk, Value: old.value}
		}
	}
	if (o.nx && (exists || isZSet)) || (o.xx && !exists && !isZSet) {
		if o.get {
			return reply
		}
		return sim.Message{Op: ReplyNil}
	}
	if isZSet {
		n.zdel(from, m.Key, out) // SET replaces a key of any type
	}
	// A key set with NX is a lock; a SET over a lock key is still the lock,
	// now holding the setter's value (a refresh that re-SETs it takes it over).
	e := entry{value: m.Value, owner: from, lock: o.nx || exists && old.lock}
	switch {
	case o.keepTTL && exists:
		e.expires, e.expireAt = old.expires, old.expireAt
	case o.unit != "":
		e.expires, e.expireAt = true, deadline
	}
	n.store(now, from, m.Key, e, out)
	return reply
}

// expire runs EXPIRE and PEXPIRE key ttl [NX|XX|GT|LT] (expire.c,
// expireGenericCommand): the options and the number are checked before the key;
// a time already past deletes the key.
func (n *Node) expire(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) sim.Message {
	var buf [maxArgs]word
	words := args(m, buf[:0])
	if len(words) == 0 {
		return errReply("ERR wrong number of arguments for '" + strings.ToLower(m.Op) + "' command")
	}
	var nx, xx, gt, lt bool
	for _, w := range words[1:] {
		switch w.keyword() {
		case "NX":
			nx = true
		case "XX":
			xx = true
		case "GT":
			gt = true
		case "LT":
			lt = true
		default:
			return errReply("ERR Unsupported option " + w.String())
		}
	}
	switch {
	case nx && (xx || gt || lt):
		return errReply(errExpireNXXX)
	case gt && lt:
		return errReply(errExpireGTLT)
	}
	when, ok := words[0].int()
	if !ok {
		return errReply(errNotInteger)
	}
	if m.Op == OpExpire {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			return errExpireTime(m.Op)
		}
		when *= 1000
	}
	if when > math.MaxInt64-wallMs(now) {
		return errExpireTime(m.Op)
	}
	e, exists := n.keys[m.Key]
	if !exists {
		if _, isZSet := n.zsets[m.Key]; isZSet {
			return errReply(errNotModelled + "expiry of sorted sets")
		}
		return intReply(0)
	}
	at := wallMs(now) + when
	cur := int64(math.MaxInt64) // no expiry counts as infinite (GT, LT)
	if e.expires && e.expireAt != math.MaxInt64 {
		cur = unixEpochMs + n.toWall(now, e.expireAt).Milliseconds()
	}
	if (nx && e.expires) || (xx && !e.expires) || (gt && at <= cur) || (lt && at >= cur) {
		return intReply(0)
	}
	if when <= 0 {
		n.remove(n.env.ID, m.Key, e, sim.ReasonExpired, out) // already past: deleted at once
		return intReply(1)
	}
	n.setExpiry(from, m.Key, e, addSat(n.clock(now), durMs(when)), durMs(when), out)
	return intReply(1)
}

// pttl runs PTTL key: -2 for no key, -1 for a key without expiry, else the
// milliseconds left by the node's expiry clock.
func (n *Node) pttl(now sim.LocalTime, k string) sim.Message {
	e, exists := n.keys[k]
	_, isZSet := n.zsets[k]
	switch {
	case isZSet:
		return intReply(-1) // sorted sets never expire in the model
	case !exists:
		return intReply(-2)
	case !e.expires:
		return intReply(-1)
	}
	left := e.expireAt - n.clock(now)
	ms := int64(left / time.Millisecond)
	if left%time.Millisecond > 0 {
		ms++ // a part of a millisecond left still counts as one
	}
	return intReply(ms)
}

// incr runs INCR key: the value must read as a Redis integer and must not
// overflow.
func (n *Node) incr(from sim.ProcID, k string, out *sim.Outputs) sim.Message {
	e, exists := n.keys[k]
	v := int64(0)
	if exists {
		var ok bool
		if v, ok = parseInt(e.value); !ok {
			return errReply(errNotInteger)
		}
	}
	if v == math.MaxInt64 {
		return errReply(errOverflow)
	}
	v++
	e.value, e.owner = strconv.FormatInt(v, 10), from
	n.keys[k] = e
	n.persist(k, e, out)
	return intReply(v)
}

// extend runs ExtendScript: GET, compare, then PEXPIRE with the script's
// argument. PEXPIRE's errors come back as a script error, as from Redis.
func (n *Node) extend(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) sim.Message {
	if e, ok := n.keys[m.Key]; !ok || e.value != m.Value {
		return intReply(0)
	}
	// PEXPIRE with the script's argument: the same words, options then numbers.
	pexpire := sim.Message{Op: OpPExpire, Key: m.Key, Opts: m.Opts}
	for _, a := range [...]sim.Arg{sim.Num1, sim.Num2} {
		if m.Has(a) {
			pexpire = pexpire.With(a, m.Num(a))
		}
	}
	r := n.expire(now, from, pexpire, out)
	if r.Op == ReplyErr {
		return scriptErr(r, ExtendScript, 2)
	}
	return r
}

// scriptErr is an error raised inside a script, as Redis words it: the
// command's error, then the script's SHA1 and the line that raised it.
func scriptErr(r sim.Message, script string, line int) sim.Message {
	r.Value += fmt.Sprintf(" script: %x, on @user_script:%d.", sha1.Sum([]byte(script)), line)
	return r
}

// Command is the node's message for a command line as a Redis client sends it
// ("SET", "L", "v", "NX", "PX", "100"), or the error Redis answers before the
// command runs (a wrong number of arguments). EVAL runs ReleaseScript and
// ExtendScript only.
func Command(argv ...string) (sim.Message, string) {
	if len(argv) == 0 {
		return sim.Message{}, "ERR empty command"
	}
	name := strings.ToUpper(argv[0])
	arity := func(ok bool, m sim.Message) (sim.Message, string) {
		if !ok {
			return sim.Message{}, "ERR wrong number of arguments for '" + strings.ToLower(argv[0]) + "' command"
		}
		return m, ""
	}
	rest := func(i int) string {
		if i >= len(argv) {
			return ""
		}
		return strings.Join(argv[i:], " ")
	}
	at := func(i int) string {
		if i >= len(argv) {
			return ""
		}
		return argv[i]
	}
	switch name {
	case OpSet:
		return arity(len(argv) >= 3, sim.Message{Op: name, Key: at(1), Value: at(2), Opts: rest(3)})
	case OpSetNX:
		return arity(len(argv) == 3, sim.Message{Op: name, Key: at(1), Value: at(2)})
	case OpGetSet:
		return arity(len(argv) == 3, sim.Message{Op: name, Key: at(1), Value: at(2)})
	case OpDel:
		// DEL takes one key or more: the others travel in Opts.
		return arity(len(argv) >= 2, sim.Message{Op: name, Key: at(1), Opts: rest(2)})
	case OpGet, OpIncr, OpPTTL:
		return arity(len(argv) == 2, sim.Message{Op: name, Key: at(1)})
	case OpExpire, OpPExpire:
		return arity(len(argv) >= 3, sim.Message{Op: name, Key: at(1), Opts: rest(2)})
	case OpZAdd:
		return arity(len(argv) >= 4, sim.Message{Op: name, Key: at(1), Opts: rest(2)})
	case OpZScore:
		return arity(len(argv) == 3, sim.Message{Op: name, Key: at(1), Opts: at(2)})
	case OpWait:
		return arity(len(argv) == 3, sim.Message{Op: name, Opts: rest(1)})
	case "REPLICAOF", "SLAVEOF":
		// Only REPLICAOF NO ONE, the failover's promotion, is modelled.
		if len(argv) != 3 {
			return arity(false, sim.Message{})
		}
		if strings.EqualFold(argv[1], "NO") && strings.EqualFold(argv[2], "ONE") {
			return sim.Message{Op: CmdFailover}, ""
		}
		return sim.Message{}, errNotModelled + "REPLICAOF HOST PORT"
	case "EVAL":
		if len(argv) < 3 {
			return arity(false, sim.Message{})
		}
		// EVAL script numkeys key... arg...: numkeys is checked first
		// (evalGenericCommand), whatever the script.
		numkeys, ok := parseInt(argv[2])
		switch {
		case !ok:
			return sim.Message{}, errNotInteger
		case numkeys < 0:
			return sim.Message{}, "ERR Number of keys can't be negative"
		case numkeys > int64(len(argv)-3):
			return sim.Message{}, "ERR Number of keys can't be greater than number of args"
		}
		// The scripts read KEYS[1] and ARGV[1] (and ARGV[2]); further keys and
		// arguments are passed and never read.
		keys, argvs := argv[3:3+numkeys], argv[3+numkeys:]
		switch {
		case numkeys >= 1 && argv[1] == ReleaseScript && len(argvs) >= 1:
			return sim.Message{Op: OpCAD, Key: keys[0], Value: argvs[0]}, ""
		case numkeys >= 1 && argv[1] == ExtendScript && len(argvs) >= 2:
			return sim.Message{Op: OpCAX, Key: keys[0], Value: argvs[0], Opts: argvs[1]}, ""
		}
		return sim.Message{}, errNotModelled + "that script"
	}
	return sim.Message{}, errNotModelled + name
}
