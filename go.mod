module github.com/locksim/locksim

go 1.25

require github.com/pkg/errors v0.9.1

require pgregory.net/rapid v1.3.0 // indirect
