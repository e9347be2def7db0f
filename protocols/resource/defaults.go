package resource

// DefaultConfig is storage that checks no token.
func DefaultConfig() Config { return Config{} }
