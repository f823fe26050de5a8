//go:build !unix

package server

// checkSocketDir accepts every directory where owners cannot be read.
func checkSocketDir(string) error { return nil }
