package table

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/artifact"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/ptf"
)

// Artifact is a function module stored in the environment's data
// directory (see docs/artifacts.md).
type Artifact struct {
	// ID is the artifact's id (art-…); Version its latest version (ver-1,
	// ...).
	ID, Name, Version string
	// Functions are the ids the module exports.
	Functions []string
}

// UploadArtifact stores a WebAssembly module of functions (built by eddy
// function build) as an artifact named name, or as the next version of the
// artifact of that name, and returns it. The module is checked to load
// first.
func (e *Environment) UploadArtifact(ctx context.Context, name string, module []byte) (*Artifact, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	all, err := e.eng.Artifacts()
	if err != nil {
		return nil, err
	}
	var a *artifact.Artifact
	for _, x := range all {
		if x.Name == name {
			a, err = e.eng.AddArtifactVersion(ctx, x.ID, module, nil)
			break
		}
	}
	if a == nil && err == nil {
		a, err = e.eng.CreateArtifact(ctx, name, "", module)
	}
	if err != nil {
		return nil, err
	}
	v := a.Latest()
	return &Artifact{ID: a.ID, Name: a.Name, Version: v.Version, Functions: v.Functions}, nil
}

// ArtifactFunction returns the function registered as id in an
// artifact's latest version, bound in the session (CREATE TEMPORARY
// FUNCTION ... USING JAR 'eddy-artifact://...'), for Process:
//
//	a, _ := env.UploadArtifact(ctx, "order_status_ptf", module)
//	tracker, _ := env.ArtifactFunction(ctx, a.ID, "examples.OrderStatusTracker")
//	res, _ := env.From("order_events").PartitionBy("order_id").Process(tracker).Execute(ctx)
func (e *Environment) ArtifactFunction(ctx context.Context, artifactID, id string) (*ptf.Definition, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	def, err := e.eng.ArtifactDefinition(artifactID, "", id)
	if err != nil {
		return nil, err
	}
	if _, ok := e.bound[def]; ok {
		return def, nil
	}
	name := fmt.Sprintf("%s_%d", id[strings.LastIndexByte(id, '.')+1:], len(e.bound))
	sql := fmt.Sprintf("CREATE TEMPORARY FUNCTION %s AS '%s' USING JAR '%s'", ast.QuoteIdent(name), id, artifact.URI(artifactID, ""))
	if _, err := e.execute(ctx, sql); err != nil {
		return nil, err
	}
	e.bound[def] = name
	return def, nil
}
