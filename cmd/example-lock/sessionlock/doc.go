// Package sessionlock is a small session lock written the way a user of
// locksim writes their own protocol: only against locksim's public packages
// (sim, protocols/lockkit), in a package of its own.
//
// A server grants one client at a time a lock for a session (2 s by default)
// and mints a fencing token with each grant, kept on its disk so that a restart
// never mints a token twice. The holder keeps its session alive with a
// heartbeat every third of it; a session not renewed in time expires on the
// server's clock, and the lock is free again. A restarted server grants nothing
// for one session, so that no holder it forgot can still be working.
//
// The client keeps a validity timer (Chubby's lease timeout, Burrows 2006):
// its session is valid until a session, less a margin, after it sent the request
// that the last grant or renewal answered, measured on its own monotonic clock.
// Once that passes (the timer fires, or an operation finds it past), the client
// stops believing it holds the lock and sends nothing more under it.
//
// ClientConfig.ValidityTimer off is the deliberately broken variant: a client
// that was stopped past its session (a GC pause, a frozen VM) wakes up still
// believing, and writes over its successor's work (Kleppmann, "How to do
// distributed locking", 2016). A resource that checks the fencing token refuses
// that write; one that does not takes it. Even the validity timer is not
// enough on its own: a write delayed in the network past the session lands
// late all the same, which only fencing catches.
package sessionlock
