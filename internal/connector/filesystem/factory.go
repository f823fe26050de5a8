package filesystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Identifier is the value of 'connector'.
const Identifier = "filesystem"

// formats are the formats a filesystem table may have.
var formats = []string{"csv", "json", "debezium-json"}

// Options declares the options of the 'filesystem' connector (Flink's).
var Options = []connector.Option{
	{Key: "connector", Type: connector.TypeString, Required: true, Doc: "Must be 'filesystem'."},
	{Key: "path", Type: connector.TypeString, Required: true, Doc: "The table's directory ('file:///dir' or a path; a relative path is resolved at CREATE TABLE). CREATE TABLE creates it when missing."},
	{Key: "format", Type: connector.TypeEnum, Required: true, Values: formats, Doc: "The format of the files: csv, json (one object per line) or debezium-json (a changelog)."},
	{Key: "<format>.*", Type: connector.TypeString, Doc: "Options of the format, such as 'csv.field-delimiter' or 'json.ignore-parse-errors'."},
	{Key: "partition.default-name", Type: connector.TypeString, Default: DefaultPartitionName, Doc: "The directory name of a NULL or empty partition value."},
	{Key: "sink.rolling-policy.file-size", Type: connector.TypeMemorySize, Default: "128 mb", Doc: "A part file is finished when it reaches this size. Every checkpoint also finishes the open part files, which makes them visible."},
	{Key: "sink.rolling-policy.rollover-interval", Type: connector.TypeDuration, Default: "30 min", Doc: "A part file is finished when it has been open this long (checked at each write); checkpoints finish them more often."},
	{Key: "sink.rolling-policy.check-interval", Type: connector.TypeDuration, Default: "1 min", Doc: "Accepted for Flink compatibility: Eddy checks the rollover interval at each write."},
	// Partition commit (Flink's): accepted with Flink's values so that
	// Flink scripts run (Nexmark's q10), but Eddy does not track when a
	// partition is complete: a part file becomes visible when the
	// checkpoint that finished it commits, and no commit policy runs.
	{Key: "sink.partition-commit.trigger", Type: connector.TypeEnum, Default: "process-time", Values: []string{"process-time", "partition-time"}, Doc: "Accepted for Flink compatibility and without effect: Eddy runs no partition commit policy."},
	{Key: "sink.partition-commit.delay", Type: connector.TypeDuration, Default: "0 s", Doc: "Accepted for Flink compatibility and without effect (see 'sink.partition-commit.trigger')."},
	{Key: "sink.partition-commit.watermark-time-zone", Type: connector.TypeString, Default: "UTC", Doc: "Accepted for Flink compatibility and without effect (see 'sink.partition-commit.trigger')."},
	{Key: "sink.partition-commit.policy.kind", Type: connector.TypeString, Doc: "Accepted for Flink compatibility and without effect: a comma-separated list of metastore, success-file and custom; Eddy writes no _SUCCESS file."},
	{Key: "sink.partition-commit.policy.class", Type: connector.TypeString, Doc: "Accepted for Flink compatibility and without effect (see 'sink.partition-commit.policy.kind')."},
	{Key: "sink.partition-commit.success-file.name", Type: connector.TypeString, Default: "_SUCCESS", Doc: "Accepted for Flink compatibility and without effect (see 'sink.partition-commit.policy.kind')."},
	{Key: "partition.time-extractor.kind", Type: connector.TypeEnum, Default: "default", Values: []string{"default", "custom"}, Doc: "Accepted for Flink compatibility and without effect: partition times serve only the partition-time commit trigger."},
	{Key: "partition.time-extractor.class", Type: connector.TypeString, Doc: "Accepted for Flink compatibility and without effect (see 'partition.time-extractor.kind')."},
	{Key: "partition.time-extractor.timestamp-pattern", Type: connector.TypeString, Doc: "Accepted for Flink compatibility and without effect (see 'partition.time-extractor.kind'); a pattern such as '$dt $hm:00'."},
	{Key: "partition.time-extractor.timestamp-formatter", Type: connector.TypeString, Default: "yyyy-MM-dd HH:mm:ss", Doc: "Accepted for Flink compatibility and without effect (see 'partition.time-extractor.kind')."},
	{Key: "sink.shuffle-by-partition.enable", Type: connector.TypeBoolean, Default: "false", Doc: "Accepted for Flink compatibility: Eddy writes from one writer."},
	{Key: "sink.parallelism", Type: connector.TypeInteger, Doc: "Accepted for Flink compatibility and ignored."},
	{Key: "error-handling.mode", Type: connector.TypeEnum, Default: "fail", Values: []string{"fail", "ignore", "log"}, Doc: "What a record that does not decode does: fail the statement, be skipped, or be logged into the dead-letter table."},
	{Key: "error-handling.log.target", Type: connector.TypeString, Default: "error_log", Doc: "The dead-letter table of 'log', created with the table in its database."},
}

var spec = connector.Spec{
	Identifier:  Identifier,
	Doc:         "A directory of csv, json or debezium-json files, read as a bounded table and written exactly once with Eddy's checkpoints; partitioned tables write 'col=value/' directories.",
	Options:     Options,
	Formats:     formats,
	Partitioned: true,
}

// Factory is the connector factory of 'filesystem' tables.
type Factory struct{}

// Spec implements connector.Factory.
func (Factory) Spec() *connector.Spec { return &spec }

// config is a table's validated options.
type config struct {
	table      string // full name
	dir        string
	format     string
	formatOpts map[string]string
	columns    []types.Field
	// data are the positions of the columns the files hold (the
	// partition columns are in the paths); parts those of the partition
	// columns, in PARTITIONED BY order.
	data, parts  []int
	defaultName  string
	fileSize     int64
	rollover     time.Duration
	errorMode    string
	errorTarget  string
	changelog    bool
	dataSchema   *types.Schema
	partitionKey []string
}

// parse validates a table's options (after the registry checked their
// declarations).
func parse(t *connector.Table) (*config, error) {
	o := t.Options
	c := &config{table: t.FullName, format: strings.ToLower(o["format"]), formatOpts: map[string]string{}, columns: t.Columns,
		defaultName: DefaultPartitionName, fileSize: 128 << 20, rollover: 30 * time.Minute, errorMode: "fail", errorTarget: "error_log"}
	dir, err := cleanPath(o["path"])
	if err != nil {
		return nil, connector.NewOptionError("path", "Invalid 'path' = '%s': %v", o["path"], err)
	}
	c.dir = dir
	for k, v := range o {
		if strings.HasPrefix(k, c.format+".") {
			c.formatOpts[k] = v
		} else if f, _, ok := strings.Cut(k, "."); ok && f != c.format && isFormat(f) {
			return nil, connector.NewOptionError(k, "Option '%s' is for format '%s', but the table's format is '%s'", k, f, c.format)
		}
	}
	if v := o["partition.default-name"]; v != "" {
		c.defaultName = v
	}
	if v := o["sink.rolling-policy.file-size"]; v != "" {
		if c.fileSize, err = connector.ParseMemorySize(v); err != nil || c.fileSize <= 0 {
			return nil, connector.NewOptionError("sink.rolling-policy.file-size", "'sink.rolling-policy.file-size' = '%s' must be a positive size", v)
		}
	}
	if v := o["sink.rolling-policy.rollover-interval"]; v != "" {
		if c.rollover, err = connector.ParseDuration("sink.rolling-policy.rollover-interval", v); err != nil {
			return nil, err
		}
	}
	if v := o["sink.partition-commit.policy.kind"]; v != "" {
		for _, kind := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(kind)) {
			case "metastore", "success-file", "custom":
			default:
				return nil, connector.NewOptionError("sink.partition-commit.policy.kind", "'sink.partition-commit.policy.kind' = '%s' is not valid: unknown policy '%s'", v, strings.TrimSpace(kind)).
					WithHint("use a comma-separated list of metastore, success-file and custom")
			}
		}
	}
	if v := o["error-handling.mode"]; v != "" {
		c.errorMode = strings.ToLower(v)
	}
	if v := o["error-handling.log.target"]; v != "" {
		c.errorTarget = v
	}
	c.changelog = format.IsChangelog(c.format)
	isPart := map[int]bool{}
	for _, p := range t.PartitionKeys {
		isPart[p] = true
		f := t.Columns[p]
		if !partitionTypeOK(f.Type) {
			return nil, connector.ColumnError(f.Name, sqlerr.Unsupported, "Partition column '%s' has type %s; a filesystem table is partitioned by CHAR, VARCHAR, BOOLEAN, an integer, DECIMAL, DATE or TIMESTAMP columns", f.Name, f.Type)
		}
		c.parts = append(c.parts, p)
		c.partitionKey = append(c.partitionKey, f.Name)
	}
	var fs []types.Field
	for i, f := range t.Columns {
		if !isPart[i] {
			c.data = append(c.data, i)
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil, connector.ClauseError(connector.ClausePartitioned, sqlerr.InvalidArgument, "Every column of '%s' is a partition column: the files would hold nothing", t.Name).
			WithHint("keep at least one column out of PARTITIONED BY")
	}
	c.dataSchema = types.NewSchema(fs...)
	if _, err := c.newCodec(); err != nil {
		if e, ok := sqlerr.As(err); ok {
			return nil, &connector.OptionError{Key: "format", Err: e}
		}
		return nil, connector.NewOptionError("format", "%v", err)
	}
	return c, nil
}

func isFormat(name string) bool {
	for _, f := range formats {
		if f == name {
			return true
		}
	}
	return false
}

// cleanPath turns 'path' into an absolute local directory ("file://" URIs
// and plain paths; other schemes are not supported).
func cleanPath(p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		p = rest
	} else if i := strings.Index(p, "://"); i > 0 {
		return "", fmt.Errorf("scheme '%s' is not supported: Eddy reads and writes local files ('file:///dir' or '/dir')", p[:i])
	}
	if p == "" {
		return "", fmt.Errorf("the path is empty")
	}
	return filepath.Abs(p)
}

// codec is a table's record format: a row codec, or a changelog codec
// for debezium-json.
type codec struct {
	row       format.Codec
	changelog format.ChangelogCodec
}

func (c *config) newCodec() (*codec, error) {
	if c.changelog {
		cc, err := format.NewChangelog(c.format, c.dataSchema, c.formatOpts)
		return &codec{changelog: cc}, err
	}
	rc, err := format.New(c.format, c.dataSchema, c.formatOpts)
	return &codec{row: rc}, err
}

// Validate implements connector.Factory. At CREATE TABLE a relative
// 'path' is stored resolved.
func (Factory) Validate(t *connector.Table) error {
	c, err := parse(t)
	if err != nil {
		return err
	}
	if t.Creating && t.Options["path"] != c.dir && !strings.HasPrefix(t.Options["path"], "file://") {
		t.Options["path"] = c.dir
	}
	return nil
}

// ChangelogMode implements connector.Factory: debezium-json tables are
// retract changelogs, csv and json tables append-only.
func (Factory) ChangelogMode(t *connector.Table) string {
	if format.IsChangelog(t.Options["format"]) {
		return connector.Retract
	}
	return connector.Append
}

// Create implements connector.Creator: the directory is created when
// missing.
func (Factory) Create(_ context.Context, t *connector.Table) (string, error) {
	c, err := parse(t)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(c.dir); err == nil {
		if !st.IsDir() && (len(c.parts) > 0 || !st.Mode().IsRegular()) {
			return "", connector.NewOptionError("path", "'path' = '%s' is a file, not a directory", c.dir).
				WithHint("a partitioned table needs a directory; a table of one file is read only")
		}
		return "", nil
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return "", connector.NewOptionError("path", "Cannot create the directory '%s': %v", c.dir, err)
	}
	return fmt.Sprintf(" Its directory '%s' was created.", c.dir), nil
}

// Dropped implements connector.Dropper: the files stay.
func (Factory) Dropped(t *connector.Table) string {
	return fmt.Sprintf(" Its files in '%s' were kept.", t.Options["path"])
}

// Source implements connector.SourceFactory.
func (Factory) Source(t *connector.Table) (*connector.Input, error) {
	c, err := parse(t)
	if err != nil {
		return nil, err
	}
	return &connector.Input{Source: &Source{cfg: c}, Errors: connector.ErrorHandling{Mode: c.errorMode, Target: c.errorTarget}}, nil
}

// Sink implements connector.SinkFactory.
func (Factory) Sink(t *connector.Table, opts connector.SinkOptions) (connector.Sink, error) {
	c, err := parse(t)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(c.dir); err == nil && !st.IsDir() {
		return nil, connector.NewOptionError("path", "'path' = '%s' is a file: a filesystem table of one file can be read, not written", c.dir).
			WithHint("write into a table whose 'path' is a directory")
	}
	s := &Sink{cfg: c, overwrite: opts.Overwrite}
	if opts.Overwrite {
		// The directory an overwrite clears even when no row reaches it:
		// the table's, or the partition's when PARTITION gives every
		// partition column. Otherwise each written partition is cleared.
		full := true
		var dirs []string
		for _, p := range c.parts {
			name := t.Columns[p].Name
			v, ok := opts.Static[name]
			if !ok {
				full = false
				break
			}
			dirs = append(dirs, name+"="+escapePathName(partitionText(v, t.Columns[p].Type, c.defaultName)))
		}
		if full {
			s.staticDir = filepath.Join(append([]string{c.dir}, dirs...)...)
		}
	}
	return s, nil
}
