package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/store"
)

// ErrKeyNotFound is returned by KeyStore.Delete for an unknown key.
var ErrKeyNotFound = errors.New("server: API key not found")

// keyIDLength is the length of a key ID: 10 random bytes in unpadded
// base32 (A-Z, 2-7).
const keyIDLength = 16

var keyIDEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// storedKey is the value stored per key under store.PrefixAPIKey. Only the
// SHA-256 of the secret is kept (see docs/decisions/0007-api-keys.md).
type storedKey struct {
	// Version of the record; 1 = SecretSHA256 is hex(sha256(secret)).
	Version      int       `json:"v"`
	ID           string    `json:"id"`
	Description  string    `json:"description,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	SecretSHA256 string    `json:"secret_sha256"`
}

// KeyStore manages the API keys of a data directory. It is safe for
// concurrent use (the store is). Secrets are never stored, logged or
// returned, except by Create, once.
type KeyStore struct {
	db    *store.DB
	clock runtime.Clock
}

// NewKeyStore returns the key store of db. A nil clock means the system
// clock.
func NewKeyStore(db *store.DB, clock runtime.Clock) *KeyStore {
	if clock == nil {
		clock = runtime.SystemClock{}
	}
	return &KeyStore{db: db, clock: clock}
}

func apiKeyKey(id string) []byte { return append([]byte{store.PrefixAPIKey}, id...) }

// hashSecret returns the SHA-256 of a secret. Secrets are 32 random bytes,
// so a fast hash is enough: there is nothing to guess by brute force that
// a slow hash would protect.
func hashSecret(secret string) [sha256.Size]byte { return sha256.Sum256([]byte(secret)) }

// Create makes a new key with a fresh random secret and stores its hash.
// The returned key carries the secret; it cannot be recovered later.
func (k *KeyStore) Create(description string) (v1.APIKey, error) {
	idBytes := make([]byte, 10)
	secretBytes := make([]byte, 32)
	if _, err := rand.Read(idBytes); err != nil {
		return v1.APIKey{}, fmt.Errorf("generating an API key: %w", err)
	}
	if _, err := rand.Read(secretBytes); err != nil {
		return v1.APIKey{}, fmt.Errorf("generating an API key: %w", err)
	}
	id := keyIDEncoding.EncodeToString(idBytes)
	secret := base64.RawURLEncoding.EncodeToString(secretBytes)
	h := hashSecret(secret)
	rec := storedKey{
		Version: 1, ID: id, Description: description,
		CreatedAt:    k.clock.Now().UTC().Truncate(time.Second),
		SecretSHA256: hex.EncodeToString(h[:]),
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return v1.APIKey{}, err
	}
	if err := k.db.Set(apiKeyKey(id), b); err != nil {
		return v1.APIKey{}, fmt.Errorf("storing API key %s: %w", id, err)
	}
	out := rec.wire()
	out.Secret = secret
	return out, nil
}

func (r storedKey) wire() v1.APIKey {
	return v1.APIKey{APIVersion: v1.APIVersion, Kind: "APIKey", ID: r.ID, Description: r.Description, CreatedAt: r.CreatedAt}
}

// List returns every key, without secrets, sorted by ID.
func (k *KeyStore) List() ([]v1.APIKey, error) {
	out := []v1.APIKey{}
	err := k.db.Scan([]byte{store.PrefixAPIKey}, func(_, v []byte) error {
		var r storedKey
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("decoding a stored API key: %w", err)
		}
		out = append(out, r.wire())
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing API keys: %w", err)
	}
	return out, nil
}

// Any reports whether at least one key exists.
func (k *KeyStore) Any() (bool, error) {
	found := false
	err := k.db.Scan([]byte{store.PrefixAPIKey}, func(_, _ []byte) error {
		found = true
		return store.ErrStop
	})
	return found, err
}

// Delete removes a key; requests using it fail from then on.
func (k *KeyStore) Delete(id string) error {
	_, ok, err := k.db.Get(apiKeyKey(id))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s", ErrKeyNotFound, id)
	}
	return k.db.Delete(apiKeyKey(id))
}

// dummyHash is compared against when a key does not exist, so that an
// unknown key costs the same hashing and comparison as a wrong secret.
var dummyHash = hashSecret("eddy: no such key")

// Verify reports whether secret is the secret of key id. It compares
// hashes in constant time. A store error counts as a failure and is
// returned so that the caller can log it.
func (k *KeyStore) Verify(id, secret string) (bool, error) {
	want := dummyHash
	found := false
	if validKeyID(id) {
		v, ok, err := k.db.Get(apiKeyKey(id))
		if err != nil {
			return false, err
		}
		if ok {
			var r storedKey
			if err := json.Unmarshal(v, &r); err != nil {
				return false, fmt.Errorf("decoding API key %s: %w", id, err)
			}
			if b, err := hex.DecodeString(r.SecretSHA256); err == nil && len(b) == sha256.Size {
				copy(want[:], b)
				found = true
			}
		}
	}
	got := hashSecret(secret)
	match := subtle.ConstantTimeCompare(got[:], want[:]) == 1
	return match && found, nil
}

func validKeyID(id string) bool {
	if len(id) != keyIDLength {
		return false
	}
	return strings.IndexFunc(id, func(r rune) bool {
		return (r < 'A' || r > 'Z') && (r < '2' || r > '7')
	}) < 0
}
