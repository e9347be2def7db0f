package redis

// Commands and replies, spelled as Redis spells them.
const (
	OpSet     = "SET"
	OpSetNX   = "SETNX"
	OpExpire  = "EXPIRE"
	OpPExpire = "PEXPIRE"
	OpGet     = "GET"
	OpDel     = "DEL"
	OpIncr    = "INCR"
	// OpCAD is the release script of the Redis docs: delete the key only if it still
	// holds the caller's value (if redis.call("get",KEYS[1]) == ARGV[1] then ...).
	OpCAD = "EVAL compare-and-delete"
	// OpCAX extends the key's TTL only if it still holds the caller's value.
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

// Disk records: the key's resulting state, as an AOF rewritten with absolute expiry
// times (PEXPIREAT) would hold it.
const (
	recSet = "SET"
	recDel = "DEL"
	// recZAdd is one sorted-set member's state: Key, member in Value, score in
	// Opts, owner in M, and N = 1 when the member is a granted mutex (zset.go).
	recZAdd = "ZADD"
)
