package lockkit

// The commands every lock client takes, as a scenario sends them (`at 1s c1
// acquire L`): the message's Op. The scenario language reads these very
// constants (through each protocol's own Cmd names), so parser and client
// agree by construction.
const (
	CmdAcquire = "acquire" // Key: the lock; a Redis client's N: the TTL in ms (Opts "PX")
	CmdRelease = "release" // Key: the lock ("" for the last one acquired)
	CmdRead    = "read"    // Key: the resource
	CmdWrite   = "write"   // Key: the resource; Opts: sim.ResourceOpts
)
