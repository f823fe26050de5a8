package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/eddy-sql/eddy/internal/artifact"
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/ptf"
)

// The session options that bound the instances of WebAssembly functions
// planned in the session.
const (
	OptionWasmMemoryLimit = "eddy.wasm.memory-limit"
	OptionWasmCallTimeout = "eddy.wasm.call-timeout"
)

// functionModules is the engine's WebAssembly runtime, started on first
// use, and which artifact each loaded definition came from.
type functionModules struct {
	mu       sync.Mutex
	cacheDir string
	rt       *wasm.Runtime
	refs     map[*ptf.Definition]string // definition -> artifact id
}

// wasmRuntime returns the engine's WebAssembly runtime, starting it (and
// giving jobs per-subtask instances through it) on first use.
func (e *Engine) wasmRuntime() (*wasm.Runtime, error) {
	m := &e.modules
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rt != nil {
		return m.rt, nil
	}
	rt, err := wasm.New(wasm.Options{CacheDir: m.cacheDir, Logger: e.logger})
	if err != nil {
		return nil, err
	}
	m.rt, m.refs = rt, map[*ptf.Definition]string{}
	return rt, nil
}

// Instance implements runtime.FunctionInstances (the engine's Env has it
// from the start; the WebAssembly runtime starts later, on first use).
func (m *functionModules) Instance(def *ptf.Definition) (*ptf.Definition, func(), bool, error) {
	m.mu.Lock()
	rt := m.rt
	m.mu.Unlock()
	if rt == nil {
		return nil, nil, false, nil
	}
	return rt.Instance(def)
}

func (e *Engine) closeModules() error {
	m := &e.modules
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rt == nil {
		return nil
	}
	err := m.rt.Close()
	m.rt = nil
	return err
}

// wasmCacheDir is where a data directory caches compiled modules.
func wasmCacheDir(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Join(dataDir, "wasm-cache")
}

// loadModule checks that code is a function module and returns it, loaded
// under the limits of the current session.
func (e *Engine) loadModule(ctx context.Context, code []byte) (*wasm.Module, error) {
	lim, err := e.wasmLimits()
	if err != nil {
		return nil, err
	}
	rt, err := e.wasmRuntime()
	if err != nil {
		return nil, err
	}
	return rt.Load(ctx, code, lim)
}

// CreateArtifact checks that code is a function module and stores it as a
// new artifact (version ver-1).
func (e *Engine) CreateArtifact(ctx context.Context, name, description string, code []byte) (*artifact.Artifact, error) {
	if err := artifact.ValidateName(name); err != nil {
		return nil, err
	}
	m, err := e.loadModule(ctx, code)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", artifact.ErrInvalid, err)
	}
	return e.arts.Create(name, description, code, m.IDs())
}

// AddArtifactVersion checks that code is a function module and stores it
// as the artifact's next version; description, if not nil, replaces the
// artifact's description. Statements pick the new version up when they
// are next planned (started, resumed, restarted) if their functions are
// bound without a version.
func (e *Engine) AddArtifactVersion(ctx context.Context, id string, code []byte, description *string) (*artifact.Artifact, error) {
	if _, err := e.arts.Get(id); err != nil {
		return nil, err
	}
	m, err := e.loadModule(ctx, code)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", artifact.ErrInvalid, err)
	}
	return e.arts.AddVersion(id, code, m.IDs(), description)
}

// Artifact returns an artifact by id.
func (e *Engine) Artifact(id string) (*artifact.Artifact, error) { return e.arts.Get(id) }

// Artifacts returns every artifact, by name.
func (e *Engine) Artifacts() ([]*artifact.Artifact, error) { return e.arts.List() }

// ArtifactUsers is how the engine learns which statements use an
// artifact (the statement manager's records); nil: none.
type ArtifactUsers func(id string) ([]string, error)

// ErrArtifactInUse is wrapped by DeleteArtifact's refusal.
var ErrArtifactInUse = errors.New("artifact in use")

// DeleteArtifact deletes an artifact unless a statement (users) or a job
// of the engine's session uses it. Functions bound to it stay in the
// catalog and fail to plan until they are dropped or created again.
func (e *Engine) DeleteArtifact(id string, users ArtifactUsers) error {
	if _, err := e.arts.Get(id); err != nil {
		return err
	}
	var names []string
	if users != nil {
		n, err := users(id)
		if err != nil {
			return err
		}
		names = append(names, n...)
	}
	if e.sessionUsesArtifact(id) {
		names = append(names, "a running query of this session")
	}
	if len(names) > 0 {
		return fmt.Errorf("%w: artifact %s is used by %s; delete those statements first (or, for a query, cancel it)", ErrArtifactInUse, id, strings.Join(names, ", "))
	}
	return e.arts.Delete(id)
}

// sessionUsesArtifact reports whether a running job of the session runs a
// function of the artifact.
func (e *Engine) sessionUsesArtifact(id string) bool {
	e.mu.Lock()
	jobs := slices.Clone(e.jobs)
	e.mu.Unlock()
	for _, j := range jobs {
		select {
		case <-j.Done():
			continue
		default:
		}
		if slices.Contains(e.artifactsOf(j.Graph().PTFs()), id) {
			return true
		}
	}
	return false
}

// artifactsOf returns the artifacts whose functions the calls run, sorted.
func (e *Engine) artifactsOf(calls []*jobgraph.PTF) []string {
	m := &e.modules
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, c := range calls {
		if id, ok := m.refs[c.Def]; ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// resolveArtifactFunction is the planner's Artifacts: the definition a
// catalog function bound to an artifact names, loaded under the session's
// limits.
func (e *Engine) resolveArtifactFunction(f *catalog.Function) (*ptf.Definition, error) {
	code, v, err := e.arts.Code(f.Artifact, f.Version)
	if err != nil {
		if errors.Is(err, artifact.ErrNotFound) {
			return nil, sqlerr.Newf(sqlerr.UnknownFunction, "Function '%s' is bound to %s, which does not exist: %v", f.Name, artifact.URI(f.Artifact, f.Version), err).
				WithHint("list the artifacts with eddy artifact list, then DROP FUNCTION %s and create it again with the right USING JAR", f.Name)
		}
		return nil, err
	}
	m, err := e.loadModule(context.Background(), code)
	if err != nil {
		if se, ok := sqlerr.As(err); ok {
			return nil, se
		}
		return nil, sqlerr.Newf(sqlerr.UnknownFunction, "Function '%s': the module of artifact %s %s does not load: %v", f.Name, f.Artifact, v.Version, err)
	}
	def, ok := m.Definition(f.ID)
	if !ok {
		return nil, sqlerr.Newf(sqlerr.UnknownFunction, "Function '%s' is bound to '%s', which version %s of artifact %s does not export", f.Name, f.ID, v.Version, f.Artifact).
			WithHint("the module exports %s; bind one of them, or pin a version that has it: USING JAR '%s'", strings.Join(m.IDs(), ", "), artifact.URI(f.Artifact, "ver-N"))
	}
	e.modules.mu.Lock()
	e.modules.refs[def] = f.Artifact
	e.modules.mu.Unlock()
	return def, nil
}

// createArtifactFunction is CREATE FUNCTION ... USING JAR
// 'eddy-artifact://...': it checks that the artifact's module exports the
// id and binds the function to it.
func (e *Engine) createArtifactFunction(s *ast.CreateFunction, f *catalog.Function) error {
	res := s.Resources[0]
	uri := res.Path.Value
	id, version, _, err := artifact.ParseURI(uri)
	if err != nil {
		return sqlerr.Newf(sqlerr.InvalidArgument, "Invalid artifact reference '%s': %v", uri, err).At(res.Path.Pos()).
			WithHint("write USING JAR 'eddy-artifact://art-…' (the id eddy artifact create printed), optionally with a version: 'eddy-artifact://art-…/ver-2'")
	}
	if len(s.Resources) > 1 {
		return sqlerr.Newf(sqlerr.Unsupported, "A function is loaded from one artifact; this statement names %d", len(s.Resources)).At(s.Resources[1].Pos()).
			WithHint("put the functions you need into one module, or create one function per artifact")
	}
	a, err := e.arts.Get(id)
	if err != nil {
		if errors.Is(err, artifact.ErrNotFound) {
			return sqlerr.Newf(sqlerr.UnknownFunction, "Artifact %s does not exist", id).At(res.Path.Pos()).
				WithHint("upload the module first: eddy artifact create NAME --artifact-file f.wasm prints the id; eddy artifact list shows the artifacts")
		}
		return err
	}
	v, ok := a.Version(version)
	if !ok {
		var vs []string
		for _, x := range a.Versions {
			vs = append(vs, x.Version)
		}
		return sqlerr.Newf(sqlerr.UnknownFunction, "Artifact %s (%s) has no version %s", id, a.Name, version).At(res.Path.Pos()).
			WithHint("its versions are %s; without a version the function follows the latest", strings.Join(vs, ", "))
	}
	if !slices.Contains(v.Functions, f.ID) {
		return sqlerr.Newf(sqlerr.UnknownFunction, "Artifact %s (%s) %s has no function '%s'", id, a.Name, v.Version, f.ID).At(s.Identifier.Pos()).
			WithHint("it exports %s: write CREATE FUNCTION %s AS '<one of them>' USING JAR '%s'", strings.Join(v.Functions, ", "), f.Name, uri)
	}
	f.Artifact, f.Version = id, version
	if _, err := e.resolveArtifactFunction(f); err != nil {
		if se, ok := sqlerr.As(err); ok {
			return se.At(res.Path.Pos())
		}
		return err
	}
	return nil
}

// wasmLimits reads the session's limits of WebAssembly functions.
func (e *Engine) wasmLimits() (wasm.Limits, error) {
	var lim wasm.Limits
	if v := e.sess.Config[OptionWasmMemoryLimit]; v != "" {
		n, err := ParseBytes(v)
		if err != nil || n < 4<<20 {
			return lim, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': use a size of at least 4 MiB such as '64 MiB' or '1 GiB'", OptionWasmMemoryLimit, v)
		}
		lim.Memory = n
	}
	if v := e.sess.Config[OptionWasmCallTimeout]; v != "" {
		d, err := plan.ParseDuration(v)
		if err != nil || d <= 0 {
			return lim, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': use a duration such as '5 s' or '500 ms'", OptionWasmCallTimeout, v)
		}
		lim.CallTimeout = d
	}
	return lim, nil
}

var bytesPattern = regexp.MustCompile(`^(?i)\s*([0-9]+)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$`)

// ParseBytes reads a size: a number of bytes with an optional unit (k,
// kb, kib = 1024; m, mb, mib = 1024²; g, gb, gib = 1024³).
func ParseBytes(s string) (int64, error) {
	m := bytesPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, err
	}
	switch strings.ToLower(m[2]) {
	case "k", "kb", "kib":
		n <<= 10
	case "m", "mb", "mib":
		n <<= 20
	case "g", "gb", "gib":
		n <<= 30
	}
	return n, nil
}

// ArtifactDefinition returns the definition of function id in a version
// of an artifact ("" for the latest), loaded under the session's limits:
// the same definition the planner binds for CREATE FUNCTION ... USING JAR
// 'eddy-artifact://id[/version]' (the Table API passes it to Process).
func (e *Engine) ArtifactDefinition(artifactID, version, id string) (*ptf.Definition, error) {
	return e.resolveArtifactFunction(&catalog.Function{Name: id, ID: id, Artifact: artifactID, Version: version})
}
