package redis

import "time"

// DefaultNodeConfig is a node as redis-server starts with no configuration
// file: no persistence, a master, writes shipped to replicas at once.
func DefaultNodeConfig() NodeConfig { return NodeConfig{} }

// DefaultClientConfig is the single-instance lock of the Redis documentation:
// SET NX PX with a 10 s TTL, the compare-and-delete release, no retry, a 1 s
// request timeout, no fencing and no WAIT (whose timeout, when asked for, is
// 100 ms).
func DefaultClientConfig() ClientConfig {
	return ClientConfig{TTL: 10 * time.Second, Timeout: time.Second, WaitTimeout: 100 * time.Millisecond}
}
