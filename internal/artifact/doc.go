// Package artifact stores function artifacts in a data directory:
// WebAssembly modules uploaded by users (eddy artifact create), each with
// an id (art-…), a name, a description and versions (ver-1, ver-2, …).
// Every version records the SHA-256 of its module and the function ids the
// module exports; the bytes are stored once per content hash. CREATE
// FUNCTION … USING JAR 'eddy-artifact://art-…[/ver-…]' binds a function of
// an artifact.
//
// The package only stores; the engine checks that a module loads before it
// stores it and refuses to delete an artifact a statement uses.
package artifact
