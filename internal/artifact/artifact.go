package artifact

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/eddy-sql/eddy/internal/store"
)

// Errors of lookups and changes; test with errors.Is.
var (
	ErrNotFound = errors.New("artifact not found")
	ErrExists   = errors.New("an artifact with this name exists")
	ErrInvalid  = errors.New("invalid artifact")
)

// URIScheme is the scheme of artifact references in USING JAR.
const URIScheme = "eddy-artifact://"

// Artifact is a stored artifact.
type Artifact struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// Versions, oldest first; the last is the latest.
	Versions []Version `json:"versions"`
}

// Version is one uploaded module of an artifact.
type Version struct {
	Version   string    `json:"version"`
	SHA256    string    `json:"sha256"`
	Size      int64     `json:"size"`
	CreatedAt time.Time `json:"created_at"`
	// Functions are the ids the module exports.
	Functions []string `json:"functions"`
}

// Latest returns the latest version.
func (a *Artifact) Latest() Version { return a.Versions[len(a.Versions)-1] }

// Version returns the named version ("" for the latest).
func (a *Artifact) Version(v string) (Version, bool) {
	if v == "" {
		return a.Latest(), true
	}
	for _, x := range a.Versions {
		if x.Version == v {
			return x, true
		}
	}
	return Version{}, false
}

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`)
	idPattern   = regexp.MustCompile(`^art-[0-9a-f]{6,32}$`)
	verPattern  = regexp.MustCompile(`^ver-[1-9][0-9]*$`)
)

// ValidateName checks an artifact name: letters, digits, '_', '.', '-',
// at most 100 characters, starting with a letter or digit.
func ValidateName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%w: name %q: use letters, digits, '_', '.' and '-' (at most 100 characters, starting with a letter or digit)", ErrInvalid, name)
	}
	return nil
}

// ParseURI parses eddy-artifact://art-…[/ver-…] into the artifact id and
// version ("" for the latest). ok is false for other schemes.
func ParseURI(uri string) (id, version string, ok bool, err error) {
	rest, found := strings.CutPrefix(uri, URIScheme)
	if !found {
		return "", "", false, nil
	}
	id, version, _ = strings.Cut(rest, "/")
	if !idPattern.MatchString(id) {
		return "", "", true, fmt.Errorf("%w: %q is not an artifact id: ids look like art-3f9a0c2d4e1b", ErrInvalid, id)
	}
	if version != "" && !verPattern.MatchString(version) {
		return "", "", true, fmt.Errorf("%w: %q is not a version: versions look like ver-2", ErrInvalid, version)
	}
	return id, version, true, nil
}

// URI returns the reference of an artifact (and version, unless "").
func URI(id, version string) string {
	if version == "" {
		return URIScheme + id
	}
	return URIScheme + id + "/" + version
}

// Store keeps artifacts in a data directory's store. It is safe for
// concurrent use.
type Store struct {
	db  *store.DB
	now func() time.Time
	mu  sync.Mutex
}

// NewStore returns the artifacts of db; now stamps creation times.
func NewStore(db *store.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

func metaKey(id string) []byte { return append([]byte{store.PrefixArtifact, 'a'}, id...) }

func blobKey(sum [32]byte) []byte { return append([]byte{store.PrefixArtifact, 'b'}, sum[:]...) }

func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "art-" + hex.EncodeToString(b)
}

// Create stores a new artifact with its first version, ver-1.
func (s *Store) Create(name, description string, code []byte, functions []string) (*Artifact, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.list()
	if err != nil {
		return nil, err
	}
	for _, a := range all {
		if a.Name == name {
			return a, fmt.Errorf("%w: %s is %s", ErrExists, name, a.ID)
		}
	}
	now := s.now().UTC()
	a := &Artifact{ID: newID(), Name: name, Description: description, CreatedAt: now, UpdatedAt: now}
	return a, s.addVersion(a, code, functions)
}

// AddVersion stores code as the artifact's next version; description, if
// not nil, replaces the artifact's description.
func (s *Store) AddVersion(id string, code []byte, functions []string, description *string) (*Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.get(id)
	if err != nil {
		return nil, err
	}
	if description != nil {
		a.Description = *description
	}
	a.UpdatedAt = s.now().UTC()
	return a, s.addVersion(a, code, functions)
}

// SetDescription replaces an artifact's description.
func (s *Store) SetDescription(id, description string) (*Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.get(id)
	if err != nil {
		return nil, err
	}
	a.Description, a.UpdatedAt = description, s.now().UTC()
	return a, s.put(a, nil)
}

func (s *Store) addVersion(a *Artifact, code []byte, functions []string) error {
	if len(code) == 0 {
		return fmt.Errorf("%w: the module is empty", ErrInvalid)
	}
	sum := sha256.Sum256(code)
	n := len(a.Versions) + 1
	if len(a.Versions) > 0 {
		last := a.Latest().Version
		k, _ := strconv.Atoi(strings.TrimPrefix(last, "ver-"))
		n = k + 1
	}
	fns := append([]string(nil), functions...)
	sort.Strings(fns)
	a.Versions = append(a.Versions, Version{
		Version: "ver-" + strconv.Itoa(n), SHA256: hex.EncodeToString(sum[:]), Size: int64(len(code)),
		CreatedAt: a.UpdatedAt, Functions: fns,
	})
	return s.put(a, code)
}

// put writes a's metadata and, if code is not nil, its bytes, in one
// synced batch.
func (s *Store) put(a *Artifact, code []byte) error {
	meta, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("encoding artifact %s: %w", a.ID, err)
	}
	b := s.db.NewWriteBatch()
	defer b.Close()
	if code != nil {
		if err := b.Set(blobKey(sha256.Sum256(code)), code); err != nil {
			return err
		}
	}
	if err := b.Set(metaKey(a.ID), meta); err != nil {
		return err
	}
	if err := b.Commit(true); err != nil {
		return fmt.Errorf("storing artifact %s: %w", a.ID, err)
	}
	return nil
}

// Get returns the artifact with the given id.
func (s *Store) Get(id string) (*Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.get(id)
}

func (s *Store) get(id string) (*Artifact, error) {
	b, ok, err := s.db.Get(metaKey(id))
	if err != nil {
		return nil, fmt.Errorf("reading artifact %s: %w", id, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	var a Artifact
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("decoding artifact %s: %w", id, err)
	}
	return &a, nil
}

// List returns every artifact, by name.
func (s *Store) List() ([]*Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list()
}

func (s *Store) list() ([]*Artifact, error) {
	var out []*Artifact
	err := s.db.Scan([]byte{store.PrefixArtifact, 'a'}, func(_, v []byte) error {
		var a Artifact
		if err := json.Unmarshal(v, &a); err != nil {
			return fmt.Errorf("decoding an artifact: %w", err)
		}
		out = append(out, &a)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Code returns the module of a version ("" for the latest).
func (s *Store) Code(id, version string) ([]byte, Version, error) {
	a, err := s.Get(id)
	if err != nil {
		return nil, Version{}, err
	}
	v, ok := a.Version(version)
	if !ok {
		return nil, Version{}, fmt.Errorf("%w: %s has no version %s (it has %s)", ErrNotFound, id, version, versionList(a))
	}
	raw, err := hex.DecodeString(v.SHA256)
	if err != nil || len(raw) != 32 {
		return nil, Version{}, fmt.Errorf("artifact %s %s: corrupt hash %q", id, v.Version, v.SHA256)
	}
	code, ok, err := s.db.Get(blobKey([32]byte(raw)))
	if err != nil {
		return nil, Version{}, fmt.Errorf("reading the module of %s %s: %w", id, v.Version, err)
	}
	if !ok {
		return nil, Version{}, fmt.Errorf("the module of artifact %s %s is missing from the data directory", id, v.Version)
	}
	return code, v, nil
}

func versionList(a *Artifact) string {
	var vs []string
	for _, v := range a.Versions {
		vs = append(vs, v.Version)
	}
	return strings.Join(vs, ", ")
}

// Delete removes an artifact and the modules no other artifact uses.
func (s *Store) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.get(id)
	if err != nil {
		return err
	}
	all, err := s.list()
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, o := range all {
		if o.ID == id {
			continue
		}
		for _, v := range o.Versions {
			used[v.SHA256] = true
		}
	}
	b := s.db.NewWriteBatch()
	defer b.Close()
	for _, v := range a.Versions {
		if used[v.SHA256] {
			continue
		}
		raw, err := hex.DecodeString(v.SHA256)
		if err == nil && len(raw) == 32 {
			if err := b.Delete(blobKey([32]byte(raw))); err != nil {
				return err
			}
		}
	}
	if err := b.Delete(metaKey(id)); err != nil {
		return err
	}
	if err := b.Commit(true); err != nil {
		return fmt.Errorf("deleting artifact %s: %w", id, err)
	}
	return nil
}
