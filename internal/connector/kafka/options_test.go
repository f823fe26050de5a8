package kafka_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
)

// TestParse runs testdata/options. Commands:
//
//	parse [connector=C] [columns=(name TYPE, ...)] [pk=(col, ...)]
//	      [dist=(col, ...)] [buckets=N] [all] [bare]
//	      Each input line is an option "key = value", "-key" (removes a base
//	      option) or "@setting = value" (an engine default, Table.Defaults).
//	      Unless bare, the base options are connector=kafka (or C),
//	      topic=t, properties.bootstrap.servers=localhost:9092 and
//	      value.format=json; the columns default to (id INT, v STRING).
//	      Prints the error, or the parsed Config: every field with all,
//	      otherwise only the lines that differ from the base options' Config.
//	redact
//	      Each input line is "key = value"; prints Redacted's result.
//
// ${DIR} in the input is a directory holding ca.pem (a self-signed CA
// certificate), cert.pem and key.pem (a client certificate signed by it,
// CN eddy-client) and bad.pem (not PEM); the output shows it as ${DIR}.
func TestParse(t *testing.T) {
	dir := t.TempDir()
	_, _, _ = writeCerts(t, dir)
	base := describeConfig(t, mustParse(t, kafka.Table{
		Name:    "cat.db.t",
		Columns: []types.Field{{Name: "id", Type: types.MustParseType("INT")}, {Name: "v", Type: types.MustParseType("STRING")}},
		Options: baseOptions("kafka"),
	}))
	datadriven.RunTest(t, "testdata/options", func(t *testing.T, d *datadriven.TestData) string {
		input := strings.ReplaceAll(d.Input, "${DIR}", dir)
		var out string
		switch d.Cmd {
		case "parse":
			out = runParse(t, d, input, base)
		case "redact":
			opts, _ := readOptions(t, input)
			red := kafka.Redacted(opts)
			var lines []string
			for k, v := range red {
				lines = append(lines, k+" = "+v)
			}
			sort.Strings(lines)
			out = strings.Join(lines, "\n") + "\n"
		default:
			t.Fatalf("unknown command %q", d.Cmd)
		}
		return strings.ReplaceAll(out, dir, "${DIR}")
	})
}

func baseOptions(connector string) map[string]string {
	return map[string]string{
		"connector":                    connector,
		"topic":                        "t",
		"properties.bootstrap.servers": "localhost:9092",
		"value.format":                 "json",
	}
}

func mustParse(t *testing.T, tbl kafka.Table) *kafka.Config {
	t.Helper()
	c, err := kafka.Parse(tbl)
	require.NoError(t, err)
	return c
}

// readOptions reads "key = value", "-key" and "@setting = value" lines.
func readOptions(t *testing.T, input string) (set map[string]string, defaults map[string]string) {
	set, defaults = map[string]string{}, map[string]string{}
	for _, line := range strings.Split(input, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "-"):
			set[strings.TrimPrefix(line, "-")] = "\x00" // removed
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("bad option line %q", line)
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if strings.HasPrefix(k, "@") {
				defaults[strings.TrimPrefix(k, "@")] = v
			} else {
				set[k] = v
			}
		}
	}
	return set, defaults
}

func runParse(t *testing.T, d *datadriven.TestData, input string, base []string) string {
	connector := "kafka"
	cols := []string{"id INT", "v STRING"}
	var pk, dist []string
	var buckets int
	all, bare := false, false
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "connector":
			connector = a.Vals[0]
		case "columns":
			cols = a.Vals
		case "pk":
			pk = a.Vals
		case "dist":
			dist = a.Vals
		case "buckets":
			d.ScanArgs(t, "buckets", &buckets)
		case "all":
			all = true
		case "bare":
			bare = true
		default:
			t.Fatalf("unknown argument %q", a.Key)
		}
	}
	tbl := kafka.Table{Name: "cat.db.t", Buckets: buckets, Options: map[string]string{}}
	if !bare {
		tbl.Options = baseOptions(connector)
	}
	var names []string
	for _, c := range cols {
		name, typ, ok := strings.Cut(strings.TrimSpace(c), " ")
		require.True(t, ok, "column %q", c)
		tbl.Columns = append(tbl.Columns, types.Field{Name: name, Type: types.MustParseType(typ)})
		names = append(names, name)
	}
	index := func(col string) int {
		for i, n := range names {
			if n == col {
				return i
			}
		}
		t.Fatalf("no column %q", col)
		return -1
	}
	for _, c := range pk {
		tbl.PrimaryKey = append(tbl.PrimaryKey, index(c))
	}
	for _, c := range dist {
		tbl.Distribution = append(tbl.Distribution, index(c))
	}
	set, defaults := readOptions(t, input)
	for k, v := range set {
		if v == "\x00" {
			delete(tbl.Options, k)
		} else {
			tbl.Options[k] = v
		}
	}
	if len(defaults) > 0 {
		tbl.Defaults = defaults
	}
	c, err := kafka.Parse(tbl)
	if err != nil {
		return describeError(err)
	}
	lines := describeConfig(t, c)
	if all {
		return strings.Join(lines, "\n") + "\n"
	}
	var diff []string
	for _, l := range lines {
		if !contains(base, l) {
			diff = append(diff, l)
		}
	}
	if len(diff) == 0 {
		return "ok\n"
	}
	return strings.Join(diff, "\n") + "\n"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// describeError prints an option error with its key, code and hint.
func describeError(err error) string {
	var oe *kafka.OptionError
	if !errors.As(err, &oe) {
		return fmt.Sprintf("error (not an OptionError): %v\n", err)
	}
	se, ok := sqlerr.As(err)
	if !ok {
		return fmt.Sprintf("error key=%s (no sqlerr): %v\n", oe.Key, err)
	}
	s := fmt.Sprintf("error (%s) key=%s: %s\n", se.Code, oe.Key, se.Message)
	if se.Hint != "" {
		s += "hint: " + se.Hint + "\n"
	}
	return s
}

// describeConfig prints a Config as "field: value" lines, including what
// the kgo options built from properties.* configure.
func describeConfig(t *testing.T, c *kafka.Config) []string {
	t.Helper()
	col := func(idx []int) string {
		var ns []string
		for _, i := range idx {
			ns = append(ns, c.Table.Columns[i].Name)
		}
		return "[" + strings.Join(ns, " ") + "]"
	}
	opts := func(m map[string]string) string {
		var kv []string
		for k, v := range m {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		return "{" + strings.Join(kv, " ") + "}"
	}
	pos := func(p kafka.Position) string {
		s := p.Mode
		if p.Mode == kafka.Timestamp {
			s += fmt.Sprintf(" millis=%d", p.TimestampMs)
		}
		if p.Offsets != nil {
			var ps []string
			for part, off := range p.Offsets {
				ps = append(ps, fmt.Sprintf("%d:%d", part, off))
			}
			sort.Strings(ps)
			s += " offsets=" + strings.Join(ps, ",")
		}
		return s
	}
	lines := []string{
		"connector: " + c.Connector,
		"topic: " + c.Topic,
		"bootstrap: " + strings.Join(c.Bootstrap, ","),
		fmt.Sprintf("key: format=%q fields=%s prefix=%q options=%s", c.KeyFormat, col(c.KeyFields), c.KeyPrefix, opts(c.KeyOptions)),
		fmt.Sprintf("value: format=%q fields=%s options=%s", c.ValueFormat, col(c.ValueFields), opts(c.ValueOptions)),
		"changelog: " + c.Changelog,
		"startup: " + pos(c.Startup),
		"bounded: " + pos(c.Bounded),
		fmt.Sprintf("idle-timeout: %v", c.IdleTimeout),
		fmt.Sprintf("group: id=%q auto.offset.reset=%q", c.GroupID, c.AutoOffsetReset),
		fmt.Sprintf("read-committed: %v", c.ReadCommitted),
		fmt.Sprintf("sink: partitioner=%s delivery=%s txn-prefix=%q txn-timeout=%v", c.Partitioner, c.Delivery, c.TransactionPrefix, c.TransactionTimeout),
		fmt.Sprintf("errors: mode=%s target=%s", c.ErrorMode, c.ErrorTarget),
		fmt.Sprintf("topic-create: create=%v partitions=%d cleanup=%s retention-ms=%q", c.CreateTopic, c.Partitions, c.CleanupPolicy, c.RetentionMs),
		fmt.Sprintf("registry: %q", c.RegistryURL),
	}
	return append(lines, describeClient(t, c.Client)...)
}

// describeClient builds a client from the options (it never connects) and
// prints what they set.
func describeClient(t *testing.T, opts []kgo.Opt) []string {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, opts...)...)
	require.NoError(t, err)
	defer cl.Close()
	var out []string
	if v := cl.OptValues(kgo.ClientID); len(v) == 2 && v[1] == true {
		out = append(out, fmt.Sprintf("client.id: %v", v[0]))
	}
	out = append(out, fmt.Sprintf("linger: %v", cl.OptValue(kgo.ProducerLinger)))
	out = append(out, fmt.Sprintf("request-timeout-overhead: %v", cl.OptValue(kgo.RequestTimeoutOverhead)))
	comp := "?"
	codecs, _ := cl.OptValue(kgo.ProducerBatchCompression).([]kgo.CompressionCodec)
	for name, c := range map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	} {
		if reflect.DeepEqual(codecs, []kgo.CompressionCodec{c}) {
			comp = name
		}
	}
	if comp == "?" {
		comp = "kgo default"
	}
	out = append(out, "compression: "+comp)
	if cfg, _ := cl.OptValue(kgo.DialTLSConfig).(*tls.Config); cfg != nil {
		s := fmt.Sprintf("tls: min-version=%s roots=%v", tls.VersionName(cfg.MinVersion), cfg.RootCAs != nil)
		for _, c := range cfg.Certificates {
			leaf := c.Leaf
			if leaf == nil {
				leaf, err = x509.ParseCertificate(c.Certificate[0])
				require.NoError(t, err)
			}
			s += " cert=" + leaf.Subject.CommonName
		}
		out = append(out, s)
	} else {
		out = append(out, "tls: none")
	}
	mechs, _ := cl.OptValue(kgo.SASL).([]sasl.Mechanism)
	if len(mechs) == 0 {
		out = append(out, "sasl: none")
	}
	for _, m := range mechs {
		out = append(out, "sasl: "+describeMechanism(t, m))
	}
	return out
}

// describeMechanism prints a SASL mechanism's name and the credentials its
// first message carries (PLAIN: user and password; SCRAM: the user).
func describeMechanism(t *testing.T, m sasl.Mechanism) string {
	_, msg, err := m.Authenticate(context.Background(), "host:9092")
	require.NoError(t, err)
	switch {
	case m.Name() == "PLAIN":
		parts := strings.Split(string(msg), "\x00")
		require.Len(t, parts, 3)
		return fmt.Sprintf("PLAIN user=%q password=%q", parts[1], parts[2])
	case strings.HasPrefix(m.Name(), "SCRAM-"):
		// "n,,n=<user>,r=<nonce>"
		for _, f := range strings.Split(string(msg), ",") {
			if u, ok := strings.CutPrefix(f, "n="); ok {
				return fmt.Sprintf("%s user=%q", m.Name(), u)
			}
		}
	}
	return m.Name()
}

// writeCerts writes ca.pem, cert.pem, key.pem and bad.pem into dir and
// returns the CA pool, a server certificate for 127.0.0.1 signed by the
// same CA (for a TLS broker), and one signed by it for another host only.
func writeCerts(t *testing.T, dir string) (pool *x509.CertPool, server, otherHost tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "eddy-test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	pool = x509.NewCertPool()
	pool.AddCert(ca)

	// issue returns a certificate signed by the CA and its PEM encoding.
	issue := func(serial int64, tmpl *x509.Certificate) (tls.Certificate, []byte, []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		require.NoError(t, err)
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		require.NoError(t, err)
		return pair, certPEM, keyPEM
	}
	_, certPEM, keyPEM := issue(2, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "eddy-client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	server, _, _ = issue(3, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kafka"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})

	otherHost, _, _ = issue(4, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "broker.example"},
		DNSNames:    []string{"broker.example"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})

	write := func(name string, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
	}
	write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	write("cert.pem", certPEM)
	write("key.pem", keyPEM)
	write("bad.pem", []byte("this is not PEM\n"))
	return pool, server, otherHost
}
