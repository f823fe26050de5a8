package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// The values of 'connector'.
const (
	Kafka       = "kafka"
	UpsertKafka = "upsert-kafka"
)

// IsConnector reports whether a 'connector' value names this package's
// connectors.
func IsConnector(c string) bool { return c == Kafka || c == UpsertKafka }

// Table is what the connector needs to know of a table.
type Table struct {
	// Name is the table's full name (catalog.database.table).
	Name string
	// Columns are the physical columns, in order.
	Columns []types.Field
	// PrimaryKey and Distribution are column indexes into Columns.
	PrimaryKey   []int
	Distribution []int
	// Buckets is the DISTRIBUTED INTO count, 0 when not given.
	Buckets int
	Options map[string]string
	// Defaults are session settings used when an option is absent:
	// "eddy.kafka.bootstrap.servers", "eddy.schema-registry.url" and
	// "table.exec.source.idle-timeout".
	Defaults map[string]string
}

// Startup modes and bounded modes.
const (
	Earliest  = "earliest-offset"
	Latest    = "latest-offset"
	Group     = "group-offsets"
	Timestamp = "timestamp"
	Specific  = "specific-offsets"
	Unbounded = "unbounded"
)

// Delivery guarantees of a sink.
const (
	None        = "none"
	AtLeastOnce = "at-least-once"
	ExactlyOnce = "exactly-once"
)

// Position says where reading starts or stops.
type Position struct {
	Mode        string
	TimestampMs int64
	Offsets     map[int32]int64 // specific-offsets
}

// Config is a table's validated options.
type Config struct {
	Table     Table
	Connector string
	Topic     string
	Bootstrap []string
	// Client holds the kgo options built from properties.* (security,
	// client id, ...).
	Client        []kgo.Opt
	GroupID       string
	ReadCommitted bool
	// AutoOffsetReset is 'properties.auto.offset.reset' (earliest, latest,
	// none or ""): where group-offsets starts a partition the group has no
	// committed offset for ("" and none: nowhere, an error, as in Flink).
	AutoOffsetReset string

	KeyFormat, ValueFormat   string
	KeyOptions, ValueOptions map[string]string
	// ValueChangelog is set for a changelog value format (debezium-json):
	// each value holds changes with their own kinds.
	ValueChangelog bool
	// KeyFields are the columns in the key; ValueFields those in the value.
	KeyFields, ValueFields []int
	KeyPrefix              string
	Changelog              string // append | retract | upsert

	Startup, Bounded Position
	IdleTimeout      time.Duration

	Partitioner        string
	Delivery           string
	TransactionPrefix  string
	TransactionTimeout time.Duration

	ErrorMode, ErrorTarget string
	CreateTopic            bool
	Partitions             int // partitions when creating the topic
	CleanupPolicy          string
	RetentionMs            string
	RegistryURL            string
}

// OptionError is a validation error about one option; the planner uses
// Key to point at the option in the DDL.
type OptionError = connector.OptionError

func optionError(key, format string, args ...any) *OptionError {
	return connector.NewOptionError(key, format, args...)
}

// Parse validates a Kafka table's options.
func Parse(t Table) (*Config, error) {
	o := t.Options
	c := &Config{Table: t, Connector: strings.ToLower(o["connector"]), KeyOptions: map[string]string{}, ValueOptions: map[string]string{}}
	if !IsConnector(c.Connector) {
		return nil, optionError("connector", "'connector' = '%s' is not a Kafka connector", o["connector"])
	}
	if err := checkKeys(o); err != nil {
		return nil, err
	}
	c.Topic = o["topic"]
	if c.Topic == "" {
		return nil, optionError("topic", "Table '%s' needs the option 'topic'", t.Name).
			WithHint("add 'topic' = '<name>' to WITH (...)")
	}
	if strings.ContainsAny(c.Topic, ";, ") {
		return nil, optionError("topic", "'topic' = '%s': one topic name is expected (topic lists are not supported)", c.Topic)
	}
	bs := o["properties.bootstrap.servers"]
	if bs == "" {
		bs = t.Defaults["eddy.kafka.bootstrap.servers"]
	}
	if bs == "" {
		return nil, optionError("properties.bootstrap.servers", "Table '%s' needs 'properties.bootstrap.servers'", t.Name).
			WithHint("add 'properties.bootstrap.servers' = 'host:9092' (for a local broker run `eddy dev kafka`)")
	}
	for _, s := range strings.Split(bs, ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.Bootstrap = append(c.Bootstrap, s)
		}
	}
	if err := c.parseProperties(o); err != nil {
		return nil, err
	}
	if err := c.parseFormats(o); err != nil {
		return nil, err
	}
	if err := c.parseKeys(o); err != nil {
		return nil, err
	}
	if err := c.checkAvroNames(); err != nil {
		return nil, err
	}
	var err error
	if c.Startup, err = parsePosition(o, "scan.startup", Earliest, []string{Earliest, Latest, Group, Timestamp, Specific}); err != nil {
		return nil, err
	}
	if c.Startup.Mode == Group && c.GroupID == "" {
		return nil, optionError("scan.startup.mode", "'scan.startup.mode' = 'group-offsets' needs 'properties.group.id'")
	}
	if c.Bounded, err = parsePosition(o, "scan.bounded", Unbounded, []string{Unbounded, Latest, Group, Timestamp, Specific}); err != nil {
		return nil, err
	}
	if c.Bounded.Mode == Group && c.GroupID == "" {
		return nil, optionError("scan.bounded.mode", "'scan.bounded.mode' = 'group-offsets' needs 'properties.group.id'")
	}
	idleKey, idle := "scan.watermark.idle-timeout", o["scan.watermark.idle-timeout"]
	if idle == "" {
		// Flink's session default for every source.
		idleKey, idle = "table.exec.source.idle-timeout", t.Defaults["table.exec.source.idle-timeout"]
	}
	if idle != "" && idle != "0" {
		if c.IdleTimeout, err = types.ParseDuration(idle); err != nil || c.IdleTimeout < 0 {
			return nil, optionError("scan.watermark.idle-timeout", "'%s' = '%s' is not a duration", idleKey, idle).
				WithHint("write a duration such as '30 s' or '5 min' (0 turns idleness off)")
		}
	}
	if c.Partitioner, err = oneOf(o, "sink.partitioner", "default", "default", "fixed", "round-robin"); err != nil {
		return nil, err
	}
	if c.Delivery, err = oneOf(o, "sink.delivery-guarantee", ExactlyOnce, ExactlyOnce, AtLeastOnce, None); err != nil {
		return nil, err
	}
	c.TransactionPrefix = o["sink.transactional-id-prefix"]
	if c.TransactionTimeout == 0 {
		c.TransactionTimeout = 60 * time.Second
	}
	if c.ErrorMode, err = oneOf(o, "error-handling.mode", "fail", "fail", "ignore", "log"); err != nil {
		return nil, err
	}
	c.ErrorTarget = o["error-handling.log.target"]
	if c.ErrorTarget == "" {
		c.ErrorTarget = "error_log"
	}
	c.CreateTopic = true
	if v, ok := o["eddy.topic.create"]; ok {
		switch strings.ToLower(v) {
		case "true":
		case "false":
			c.CreateTopic = false
		default:
			return nil, optionError("eddy.topic.create", "'eddy.topic.create' must be true or false, not '%s'", v)
		}
	}
	c.Partitions = t.Buckets
	c.CleanupPolicy = o["kafka.cleanup-policy"]
	if c.CleanupPolicy == "" {
		c.CleanupPolicy = "delete"
		if c.Connector == UpsertKafka {
			c.CleanupPolicy = "compact"
		}
	}
	if v := o["kafka.retention.time"]; v != "" {
		d, err := types.ParseDuration(v)
		if err != nil {
			return nil, optionError("kafka.retention.time", "'kafka.retention.time' = '%s' is not a duration", v)
		}
		c.RetentionMs = strconv.FormatInt(d.Milliseconds(), 10)
	}
	return c, nil
}

func checkKeys(o map[string]string) error {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case slices.Contains(topLevel(), k):
		case strings.HasPrefix(k, "properties."):
			p := strings.TrimPrefix(k, "properties.")
			if props := properties(); !slices.Contains(props, p) {
				e := optionError(k, "Unsupported Kafka client property '%s'", k)
				if s := suggest(p, props); s != "" {
					return e.WithHint("did you mean 'properties.%s'? Supported: %s", s, strings.Join(props, ", "))
				}
				return e.WithHint("supported properties: %s", strings.Join(props, ", "))
			}
		case strings.HasPrefix(k, "key.") || strings.HasPrefix(k, "value."):
			// key.<format>.<option>, value.<format>.<option>: checked by the
			// format. A misspelt key.fields, key.fields-prefix or
			// value.fields-include is not a format option: parseFormats
			// skips "<part>.fields*" keys, so it would be silently ignored.
			part, rest, _ := strings.Cut(k, ".")
			if strings.HasPrefix(rest, "fields") {
				e := optionError(k, "Unknown option '%s' for a Kafka table", k)
				if s := suggest(k, topLevel()); s != "" {
					e.WithHint("did you mean '%s'?", s)
				}
				return e
			}
			if part == "key" && o["key.format"] == "" {
				return optionError(k, "'%s' is a key format option but the table has no 'key.format'", k).
					WithHint("add 'key.format' or remove '%s'", k)
			}
		default:
			e := optionError(k, "Unknown option '%s' for a Kafka table", k)
			if s := suggest(k, topLevel()); s != "" {
				e.WithHint("did you mean '%s'?", s)
			}
			return e
		}
	}
	return nil
}

func suggest(s string, known []string) string { return sqlerr.Closest(s, known, 4) }

func oneOf(o map[string]string, key, def string, values ...string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(o[key]))
	if v == "" {
		return def, nil
	}
	if !slices.Contains(values, v) {
		return "", optionError(key, "'%s' = '%s' is not valid", key, o[key]).WithHint("use one of: %s", strings.Join(values, ", "))
	}
	return v, nil
}

var specificRe = regexp.MustCompile(`^partition:(\d+),offset:(\d+)$`)

func parsePosition(o map[string]string, prefix, def string, modes []string) (Position, error) {
	var p Position
	var err error
	if p.Mode, err = oneOf(o, prefix+".mode", def, modes...); err != nil {
		return p, err
	}
	switch p.Mode {
	case Timestamp:
		key := prefix + ".timestamp-millis"
		v := o[key]
		if v == "" {
			return p, optionError(key, "'%s.mode' = 'timestamp' needs '%s'", prefix, key)
		}
		if p.TimestampMs, err = strconv.ParseInt(v, 10, 64); err != nil || p.TimestampMs < 0 {
			return p, optionError(key, "'%s' = '%s' is not a timestamp in milliseconds", key, v)
		}
	case Specific:
		key := prefix + ".specific-offsets"
		v := o[key]
		if v == "" {
			return p, optionError(key, "'%s.mode' = 'specific-offsets' needs '%s'", prefix, key).
				WithHint("write '%s' = 'partition:0,offset:42;partition:1,offset:300'", key)
		}
		p.Offsets = map[int32]int64{}
		for _, part := range strings.Split(v, ";") {
			m := specificRe.FindStringSubmatch(strings.TrimSpace(part))
			if m == nil {
				return p, optionError(key, "'%s': cannot read '%s'", key, part).
					WithHint("write 'partition:0,offset:42;partition:1,offset:300'")
			}
			pp, _ := strconv.ParseInt(m[1], 10, 32)
			off, _ := strconv.ParseInt(m[2], 10, 64)
			p.Offsets[int32(pp)] = off
		}
	}
	return p, nil
}

func (c *Config) parseProperties(o map[string]string) error {
	prop := func(k string) string { return o["properties."+k] }
	c.GroupID = prop("group.id")
	switch v := strings.ToLower(strings.TrimSpace(prop("auto.offset.reset"))); v {
	case "", "earliest", "latest", "none":
		c.AutoOffsetReset = v
	default:
		return optionError("properties.auto.offset.reset", "'properties.auto.offset.reset' = '%s' is not valid", prop("auto.offset.reset")).
			WithHint("use earliest, latest or none")
	}
	c.ReadCommitted = true
	iso := prop("isolation.level")
	if v := o["kafka.consumer.isolation-level"]; v != "" {
		iso = strings.ReplaceAll(v, "-", "_")
	}
	switch strings.ToLower(iso) {
	case "", "read_committed":
	case "read_uncommitted":
		c.ReadCommitted = false
	default:
		return optionError("properties.isolation.level", "'properties.isolation.level' = '%s' is not valid", iso).
			WithHint("use read_committed or read_uncommitted")
	}
	if v := prop("client.id"); v != "" {
		c.Client = append(c.Client, kgo.ClientID(v))
	}
	if v := prop("transaction.timeout.ms"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return optionError("properties.transaction.timeout.ms", "'properties.transaction.timeout.ms' = '%s' is not a positive number", v)
		}
		c.TransactionTimeout = time.Duration(ms) * time.Millisecond
	}
	if v := prop("linger.ms"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return optionError("properties.linger.ms", "'properties.linger.ms' = '%s' is not a number", v)
		}
		c.Client = append(c.Client, kgo.ProducerLinger(time.Duration(ms)*time.Millisecond))
	}
	if v := prop("request.timeout.ms"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return optionError("properties.request.timeout.ms", "'properties.request.timeout.ms' = '%s' is not a positive number", v)
		}
		c.Client = append(c.Client, kgo.RequestTimeoutOverhead(time.Duration(ms)*time.Millisecond))
	}
	comp := prop("compression.type")
	if v := o["kafka.producer.compression.type"]; v != "" {
		comp = v
	}
	if comp != "" {
		var codec kgo.CompressionCodec
		switch strings.ToLower(comp) {
		case "none":
			codec = kgo.NoCompression()
		case "gzip":
			codec = kgo.GzipCompression()
		case "snappy":
			codec = kgo.SnappyCompression()
		case "lz4":
			codec = kgo.Lz4Compression()
		case "zstd":
			codec = kgo.ZstdCompression()
		default:
			return optionError("properties.compression.type", "'compression.type' = '%s' is not valid", comp).
				WithHint("use none, gzip, snappy, lz4 or zstd")
		}
		c.Client = append(c.Client, kgo.ProducerBatchCompression(codec))
	}
	proto := strings.ToUpper(prop("security.protocol"))
	switch proto {
	case "", "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL":
	default:
		return optionError("properties.security.protocol", "'properties.security.protocol' = '%s' is not valid", prop("security.protocol")).
			WithHint("use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL")
	}
	if proto == "SSL" || proto == "SASL_SSL" {
		cfg, err := tlsConfig(prop("ssl.ca.location"), prop("ssl.certificate.location"), prop("ssl.key.location"))
		if err == nil {
			// As in Kafka's Java client, an empty
			// ssl.endpoint.identification.algorithm turns hostname
			// verification off (the chain is still verified); "https"
			// (the default) keeps it.
			alg, set := o["properties.ssl.endpoint.identification.algorithm"]
			switch strings.ToLower(alg) {
			case "https":
			case "":
				if set {
					skipHostnameVerification(cfg)
				}
			default:
				err = optionError("properties.ssl.endpoint.identification.algorithm", "'properties.ssl.endpoint.identification.algorithm' = '%s' is not valid", alg).
					WithHint("use 'https' (verify the broker's hostname) or '' (do not)")
			}
		}
		if err != nil {
			return err
		}
		c.Client = append(c.Client, kgo.DialTLSConfig(cfg))
	}
	if !strings.HasPrefix(proto, "SASL") {
		for _, k := range []string{"sasl.mechanism", "sasl.jaas.config", "sasl.username", "sasl.password"} {
			if prop(k) != "" {
				return optionError("properties."+k, "'properties.%s' needs 'properties.security.protocol' = 'SASL_SSL' or 'SASL_PLAINTEXT'", k)
			}
		}
	}
	if strings.HasPrefix(proto, "SASL") {
		user, pass := prop("sasl.username"), prop("sasl.password")
		if jaas := prop("sasl.jaas.config"); jaas != "" {
			u, p, err := parseJAAS(jaas)
			if err != nil {
				return err
			}
			user, pass = u, p
		}
		if user == "" {
			return optionError("properties.sasl.jaas.config", "SASL needs a user: set 'properties.sasl.jaas.config' or 'properties.sasl.username' and 'properties.sasl.password'")
		}
		switch strings.ToUpper(prop("sasl.mechanism")) {
		case "", "PLAIN":
			c.Client = append(c.Client, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
		case "SCRAM-SHA-256":
			c.Client = append(c.Client, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
		case "SCRAM-SHA-512":
			c.Client = append(c.Client, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
		default:
			return optionError("properties.sasl.mechanism", "'properties.sasl.mechanism' = '%s' is not supported", prop("sasl.mechanism")).
				WithHint("use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
		}
	}
	return nil
}

var jaasRe = regexp.MustCompile(`\b(username|password)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// unescapeJAAS resolves the backslash escapes of a quoted JAAS value as
// Kafka's JaasConfig (java.io.StreamTokenizer) does: \n, \t, \r, \b, \f,
// \a and \v are control characters, any other escaped character (\" or
// \\) stands for itself (octal escapes are not supported).
func unescapeJAAS(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			c = s[i]
			switch c {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'a':
				c = '\a'
			case 'v':
				c = '\v'
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// parseJAAS reads the user and password of a sasl.jaas.config value such
// as `org.apache.kafka.common.security.plain.PlainLoginModule required
// username="u" password="p";`.
func parseJAAS(s string) (string, string, error) {
	var user, pass string
	for _, m := range jaasRe.FindAllStringSubmatch(s, -1) {
		v := unescapeJAAS(m[2])
		if m[1] == "username" {
			user = v
		} else {
			pass = v
		}
	}
	if user == "" {
		return "", "", optionError("properties.sasl.jaas.config", "'properties.sasl.jaas.config' has no username=\"...\"")
	}
	return user, pass, nil
}

// skipHostnameVerification makes cfg verify the broker's certificate chain
// against its roots but not the hostname.
func skipHostnameVerification(cfg *tls.Config) {
	cfg.InsecureSkipVerify = true // replaced by the chain check below
	roots := cfg.RootCAs
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the broker sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
}

func tlsConfig(ca, cert, key string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, optionError("properties.ssl.ca.location", "reading 'properties.ssl.ca.location': %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, optionError("properties.ssl.ca.location", "'properties.ssl.ca.location' = '%s' holds no PEM certificate", ca)
		}
		cfg.RootCAs = pool
	}
	if cert != "" || key != "" {
		if cert == "" || key == "" {
			return nil, optionError("properties.ssl.certificate.location", "A client certificate needs both 'properties.ssl.certificate.location' and 'properties.ssl.key.location'")
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, optionError("properties.ssl.certificate.location", "loading the client certificate: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func (c *Config) parseFormats(o map[string]string) error {
	c.ValueFormat = o["value.format"]
	if c.ValueFormat == "" {
		c.ValueFormat = o["format"]
	}
	if c.ValueFormat == "" {
		return optionError("value.format", "Table '%s' needs 'value.format'", c.Table.Name).
			WithHint("add 'value.format' = 'json' (or raw, avro, avro-confluent, json-registry, debezium-json)")
	}
	c.KeyFormat = o["key.format"]
	for _, f := range []struct {
		key  string
		name *string
		opts map[string]string
	}{{"key", &c.KeyFormat, c.KeyOptions}, {"value", &c.ValueFormat, c.ValueOptions}} {
		if *f.name == "" {
			continue
		}
		canon := format.Canonical(*f.name)
		if canon == "" {
			return optionError(f.key+".format", "Unknown format '%s'", *f.name).
				WithHint("use one of: %s", strings.Join(format.Names(), ", "))
		}
		*f.name = canon
		if format.IsChangelog(canon) {
			if f.key == "key" {
				return optionError("key.format", "'key.format' cannot be '%s': a changelog format describes values", canon).
					WithHint("use raw or json for the key")
			}
			c.ValueChangelog = true
		}
		for k, v := range o {
			if !strings.HasPrefix(k, f.key+".") || k == f.key+".format" || strings.HasPrefix(k, f.key+".fields") {
				continue
			}
			f.opts[strings.TrimPrefix(k, f.key+".")] = v
		}
	}
	for _, f := range []struct {
		part, name string
		opts       map[string]string
	}{{"key", c.KeyFormat, c.KeyOptions}, {"value", c.ValueFormat, c.ValueOptions}} {
		if f.name != "avro-confluent" && f.name != "json-registry" {
			continue
		}
		url := ""
		for k, v := range f.opts {
			if strings.HasSuffix(k, ".url") || k == "url" {
				url = v
			}
		}
		if url == "" {
			url = c.Table.Defaults["eddy.schema-registry.url"]
		}
		if url == "" {
			return optionError(f.part+"."+f.name+".url", "Format '%s' needs the schema registry URL", f.name).
				WithHint("add '%s.%s.url' = 'http://host:8081' (for a local registry run `eddy dev kafka`)", f.part, f.name)
		}
		c.RegistryURL = url
	}
	return nil
}

func (c *Config) parseKeys(o map[string]string) error {
	t := c.Table
	names := make([]string, len(t.Columns))
	for i, f := range t.Columns {
		names[i] = f.Name
	}
	idx := func(n string) int {
		for i, x := range names {
			if x == n {
				return i
			}
		}
		return -1
	}
	c.KeyPrefix = o["key.fields-prefix"]
	include, err := oneOf(o, "value.fields-include", "all", "all", "except_key")
	if err != nil {
		return err
	}
	switch c.Connector {
	case UpsertKafka:
		if len(t.PrimaryKey) == 0 {
			return optionError("connector", "An 'upsert-kafka' table needs a PRIMARY KEY: it is the message key").
				WithHint("add PRIMARY KEY (col) NOT ENFORCED")
		}
		if o["key.fields"] != "" {
			return optionError("key.fields", "An 'upsert-kafka' table takes its key from the PRIMARY KEY; remove 'key.fields'")
		}
		if len(t.Distribution) > 0 && !sameInts(t.Distribution, t.PrimaryKey) {
			return optionError("connector", "An 'upsert-kafka' table must be DISTRIBUTED BY its PRIMARY KEY")
		}
		c.KeyFields = t.PrimaryKey
		c.Changelog = "upsert"
		if m := o["changelog.mode"]; m != "" && strings.ToLower(m) != "upsert" {
			return optionError("changelog.mode", "An 'upsert-kafka' table has 'changelog.mode' = 'upsert', not '%s'", m)
		}
		if c.KeyFormat == "" {
			return optionError("key.format", "An 'upsert-kafka' table needs 'key.format'").WithHint("add 'key.format' = 'raw' (one key column) or 'json'")
		}
		if c.ValueChangelog {
			return optionError("value.format", "The 'upsert-kafka' connector does not take '%s' as value format: it is not an insert-only format", c.ValueFormat).
				WithHint("use 'connector' = 'kafka' to read a Debezium changelog")
		}
	default:
		if c.Changelog, err = oneOf(o, "changelog.mode", "append", "append", "retract"); err != nil {
			return err
		}
		if c.ValueChangelog {
			if m := o["changelog.mode"]; m != "" && !strings.EqualFold(m, "retract") {
				return optionError("changelog.mode", "A table with value format '%s' is a retract changelog: 'changelog.mode' cannot be '%s'", c.ValueFormat, m).
					WithHint("remove 'changelog.mode'")
			}
			c.Changelog = "retract"
		}
		if len(t.PrimaryKey) > 0 && c.Changelog != "retract" {
			return optionError("connector", "A 'kafka' table with 'changelog.mode' = 'append' cannot have a PRIMARY KEY").
				WithHint("use 'connector' = 'upsert-kafka' for a table keyed by its primary key")
		}
		if v := o["key.fields"]; v != "" {
			for _, n := range strings.Split(v, ";") {
				n = strings.TrimSpace(n)
				i := idx(n)
				if i < 0 {
					return optionError("key.fields", "'key.fields': column '%s' does not exist", n).WithHint("columns: %s", strings.Join(names, ", "))
				}
				c.KeyFields = append(c.KeyFields, i)
			}
			if len(t.Distribution) > 0 && !sameInts(t.Distribution, c.KeyFields) {
				return optionError("key.fields", "'key.fields' must name the DISTRIBUTED BY columns")
			}
		} else {
			c.KeyFields = t.Distribution
		}
		if len(c.KeyFields) > 0 && c.KeyFormat == "" {
			return optionError("key.format", "'key.fields' needs 'key.format'").WithHint("add 'key.format' = 'raw' or 'json'")
		}
		if len(c.KeyFields) == 0 && c.KeyFormat != "" {
			return optionError("key.format", "'key.format' is set but the table has no key columns").
				WithHint("add 'key.fields' = 'col' or DISTRIBUTED BY (col)")
		}
	}
	if c.KeyPrefix != "" {
		if include != "except_key" {
			return optionError("key.fields-prefix", "'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY'")
		}
		for _, k := range c.KeyFields {
			if !strings.HasPrefix(names[k], c.KeyPrefix) {
				return optionError("key.fields-prefix", "Key column '%s' does not start with the prefix '%s'", names[k], c.KeyPrefix)
			}
		}
	}
	for i := range t.Columns {
		if include == "except_key" && slices.Contains(c.KeyFields, i) {
			continue
		}
		c.ValueFields = append(c.ValueFields, i)
	}
	if len(c.ValueFields) == 0 {
		return optionError("value.fields-include", "The value would have no columns: every column is in the key")
	}
	return nil
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// keySchema and valueSchema are the columns of the key and the value
// payloads (key names without the prefix).
func (c *Config) keySchema() *types.Schema {
	var fs []types.Field
	for _, k := range c.KeyFields {
		f := c.Table.Columns[k]
		f.Name = strings.TrimPrefix(f.Name, c.KeyPrefix)
		fs = append(fs, f)
	}
	return types.NewSchema(fs...)
}

func (c *Config) valueSchema() *types.Schema {
	var fs []types.Field
	for _, k := range c.ValueFields {
		fs = append(fs, c.Table.Columns[k])
	}
	return types.NewSchema(fs...)
}

// Redacted returns the options with secrets hidden, for SHOW CREATE TABLE
// and the REST API.
func Redacted(o map[string]string) map[string]string {
	out := make(map[string]string, len(o))
	for k, v := range o {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "password") || strings.Contains(lk, "jaas") || strings.Contains(lk, "user-info") || strings.Contains(lk, "token") {
			v = "****"
		}
		out[k] = v
	}
	return out
}

// checkAvroNames rejects, at CREATE TABLE, columns that Avro formats cannot
// name (Flink's schema derivation fails on them too).
func (c *Config) checkAvroNames() error {
	for _, p := range []struct {
		key, format string
		schema      *types.Schema
	}{{"key.format", c.KeyFormat, c.keySchema()}, {"value.format", c.ValueFormat, c.valueSchema()}} {
		if p.format != "avro" && p.format != "avro-confluent" || p.schema.Len() == 0 {
			continue
		}
		if _, err := format.AvroSchema(p.schema); err != nil {
			if e, ok := sqlerr.As(err); ok {
				return &OptionError{Key: p.key, Err: e}
			}
			return optionError(p.key, "%v", err)
		}
	}
	return nil
}
