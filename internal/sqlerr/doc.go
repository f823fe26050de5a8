// Package sqlerr defines the one user-facing error type of Eddy: a stable
// code, a message, an optional source position and a hint that says what to
// do. It is the bottom layer and imports only the standard library.
package sqlerr
