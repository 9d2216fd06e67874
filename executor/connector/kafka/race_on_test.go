//go:build race

package kafka

// raceBuild: the race detector is on (sync.Pool then drops some of what it
// is given, on purpose, so allocation counts do not hold).
const raceBuild = true
