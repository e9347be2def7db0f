package etcd

import "time"

// DefaultMemberConfig is etcd's default timing: a 100 ms heartbeat and a 1 s
// election timeout.
func DefaultMemberConfig() MemberConfig {
	return MemberConfig{Heartbeat: 100 * time.Millisecond, ElectionTimeout: time.Second}
}

// DefaultClientConfig is the concurrency package's lock with a 5 s session
// lease (concurrency.NewSession's default TTL is 60 s; the lessons use 5 s), a
// 1 s request timeout and no fencing.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{TTL: 5 * time.Second, Timeout: time.Second}
}
