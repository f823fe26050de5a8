package kafka

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/types"
)

// codecs builds the key codec (nil without key columns) and the value
// codec. Registry formats contact the registry: register says whether the
// schema derived from the table is registered under the topic's subject
// (sinks and CREATE TABLE) or only looked up.
func (c *Config) codecs(ctx context.Context, register bool) (key, value format.Codec, err error) {
	if len(c.KeyFields) > 0 {
		if key, err = c.codec(ctx, "key", c.KeyFormat, c.keySchema().Fields, c.KeyOptions, register); err != nil {
			return nil, nil, err
		}
	}
	if c.ValueChangelog {
		return key, nil, nil // changelogCodec
	}
	if value, err = c.codec(ctx, "value", c.ValueFormat, c.valueSchema().Fields, c.ValueOptions, register); err != nil {
		return nil, nil, err
	}
	return key, value, nil
}

// changelogCodec returns the value codec of a changelog value format
// (debezium-json), nil for other formats.
func (c *Config) changelogCodec() (format.ChangelogCodec, error) {
	if !c.ValueChangelog {
		return nil, nil
	}
	cc, err := format.NewChangelog(c.ValueFormat, c.valueSchema(), c.ValueOptions)
	if err != nil {
		return nil, fmt.Errorf("value format of %s: %w", c.Table.Name, err)
	}
	return cc, nil
}

func (c *Config) codec(ctx context.Context, part, name string, cols []types.Field, opts map[string]string, register bool) (format.Codec, error) {
	switch name {
	case "avro-confluent", "json-registry":
		reg, err := format.NewRegistry(c.RegistryURL, stripFormat(name, opts))
		if err != nil {
			return nil, fmt.Errorf("%s format of %s: %w", part, c.Table.Name, err)
		}
		subject := c.Topic + "-" + part
		if s := stripFormat(name, opts)["subject"]; s != "" {
			subject = s
		}
		cd, err := format.NewRegistryCodec(ctx, name, cols, opts, format.RegistryOptions{Registry: reg, Subject: subject, Register: register})
		if err != nil {
			return nil, fmt.Errorf("%s format of %s: %w", part, c.Table.Name, err)
		}
		return cd, nil
	}
	cd, err := format.New(name, types.NewSchema(cols...), opts)
	if err != nil {
		return nil, fmt.Errorf("%s format of %s: %w", part, c.Table.Name, err)
	}
	return cd, nil
}

// stripFormat returns the options of a format without the "<format>."
// prefix.
func stripFormat(name string, opts map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range opts {
		for _, p := range []string{name + ".", "avro-confluent.", "avro-registry.", "json-registry."} {
			k = strings.TrimPrefix(k, p)
		}
		out[k] = v
	}
	return out
}
