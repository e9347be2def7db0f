package zookeeper

import "time"

// DefaultServerConfig is ZooKeeper's tickTime of 2 s, a leader timeout of five
// ticks (0: syncLimit) and a 200 ms election round.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{Tick: DefaultTick, ElectionTime: 200 * time.Millisecond}
}

// DefaultClientConfig is Curator's lock recipe with a 4 s session: a watch on
// the predecessor, no fencing, no protected mode.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{SessionTimeout: 4 * time.Second}
}
