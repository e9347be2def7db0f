package etcd

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// cmdKind is what a log entry asks the store to do.
type cmdKind uint8

const (
	cmdNoop    cmdKind = iota // a new leader's first entry
	cmdGrant                  // LeaseGrant: a lease with a TTL
	cmdRevoke                 // LeaseRevoke: delete the lease and its keys
	cmdLockTxn                // the Mutex's transaction: put my key if absent, read the owner
	cmdGetPred                // Range over a prefix: the last key created before a revision
	cmdGet                    // Range of one key
	cmdDelete                 // DeleteRange of one key
)

var cmdNames = [...]string{"noop", "LeaseGrant", "LeaseRevoke", "Txn", "Range", "Range", "DeleteRange"}

// cmd is a client request as it travels through the log. Each log, disk and
// delivery holds its own copy (wire.go).
type cmd struct {
	Kind    cmdKind
	Key     string // Txn, Get, Delete: the key; GetPred: the prefix
	Prefix  string // Txn: the lock prefix whose owner the Txn also reads
	Lease   int64  // Txn: the lease to attach; Revoke: the lease
	TTL     time.Duration
	MaxRev  int64 // GetPred: only keys created at or before this revision
	Expired bool  // Revoke: the leader revokes an expired lease (not a client)
	Client  sim.ProcID
	Origin  sim.ProcID // the member that answers the client
	Req     uint64
}

func (c *cmd) String() string {
	switch c.Kind {
	case cmdGrant:
		return "LeaseGrant ttl=" + sim.FormatDuration(c.TTL)
	case cmdRevoke:
		if c.Expired {
			return fmt.Sprintf("LeaseRevoke %d (expired)", c.Lease)
		}
		return fmt.Sprintf("LeaseRevoke %d", c.Lease)
	case cmdLockTxn:
		return fmt.Sprintf("Txn if create_revision(%s)=0 then put %s lease=%d", c.Key, c.Key, c.Lease)
	case cmdGetPred:
		return fmt.Sprintf("Range %s last-create max-create-rev=%d", c.Key, c.MaxRev)
	case cmdGet, cmdDelete:
		return cmdNames[c.Kind] + " " + c.Key
	}
	return cmdNames[c.Kind]
}
