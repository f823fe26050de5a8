// Package builtin assembles the connectors built into the eddy binary:
// kafka, upsert-kafka, datagen, nexmark, filesystem, print and blackhole.
// The engine plans with this registry; nothing else names a connector.
package builtin

import (
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/connector/blackhole"
	"github.com/eddy-sql/eddy/internal/connector/datagen"
	"github.com/eddy-sql/eddy/internal/connector/filesystem"
	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/internal/connector/printsink"
)

// Factories returns a new list of the built-in connector factories.
func Factories() []connector.Factory {
	fs := []connector.Factory{datagen.Factory{}, nexmark.Factory{}, printsink.Factory{}, blackhole.Factory{}, filesystem.Factory{}}
	return append(fs, kafka.Factories()...)
}

// Registry returns a registry of the built-in connectors.
func Registry() *connector.Registry {
	r, err := connector.NewRegistry(Factories()...)
	if err != nil {
		panic("builtin connectors: " + err.Error()) // identifiers are constants: a programming error
	}
	return r
}
