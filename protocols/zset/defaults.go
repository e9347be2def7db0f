package zset

import "time"

// DefaultConfig is a client with no mode chosen (the scenario must choose one),
// no retry and a 1 s request timeout.
func DefaultConfig() Config { return Config{Timeout: time.Second} }
