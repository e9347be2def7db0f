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
)
