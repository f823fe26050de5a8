//go:build !unix

package cli

// checkSocketOwner accepts every socket where file owners cannot be read.
func checkSocketOwner(string) error { return nil }
