package format

import (
	"errors"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/types"
)

// csvTypes is allTypes without MAP (csv has none) and with an ARRAY of
// strings.
func csvTypes() *types.Schema {
	var fs []types.Field
	for _, fl := range allTypes().Fields {
		if fl.Type.ID != types.TypeMap {
			fs = append(fs, fl)
		}
	}
	return types.NewSchema(append(fs, f("sa", "ARRAY<STRING>"))...)
}

func csvValues(t testing.TB) []types.Value {
	var out []types.Value
	for i, fl := range allTypes().Fields {
		if fl.Type.ID != types.TypeMap {
			out = append(out, allValues(t)[i])
		}
	}
	return append(out, types.NewArray([]types.Value{types.NewString("x"), types.NewString("y,z")}))
}

func TestCSVRoundTrip(t *testing.T) {
	s := csvTypes()
	for _, opts := range []map[string]string{
		nil,
		{"csv.field-delimiter": "|"},
		{"field-delimiter": `\t`, "csv.null-literal": `\N`},
		{"csv.quote-character": "'", "csv.array-element-delimiter": "#"},
		{"csv.escape-character": "\\"},
	} {
		c, err := New("csv", s, opts)
		if err != nil {
			t.Fatal(err)
		}
		vals := csvValues(t)
		// ARRAY<INT> has a NULL element: csv writes it as an empty element,
		// which reads back as NULL.
		b, err := c.Encode(nil, vals)
		if err != nil {
			t.Fatalf("%v: %v", opts, err)
		}
		got, err := c.Decode(b, nil)
		if err != nil {
			t.Fatalf("%v: decoding %q: %v", opts, b, err)
		}
		if !sameRow(vals, got) {
			t.Fatalf("%v: round trip of %q:\n%v\n%v", opts, b, vals, got)
		}
		nulls := nullValues(s)
		b, err = c.Encode(nil, nulls)
		if err != nil {
			t.Fatal(err)
		}
		got, err = c.Decode(b, nil)
		if err != nil {
			t.Fatalf("%v: decoding %q: %v", opts, b, err)
		}
		// A NULL string is written as an empty field and read back as ''
		// (as in Flink), unless a null literal is set.
		for i, fl := range s.Fields {
			want := nulls[i]
			if (fl.Type.ID == types.TypeVarChar || fl.Type.ID == types.TypeChar) && opts["csv.null-literal"] == "" {
				want = types.NewString("")
			}
			if !sameValue(want, got[i]) {
				t.Fatalf("%v: column %s of %q: want %v, got %v", opts, fl.Name, b, want, got[i])
			}
		}
	}
}

func TestCSVEncode(t *testing.T) {
	s := types.NewSchema(f("id", "INT"), f("name", "STRING"), f("price", "DECIMAL(10, 2)"), f("ts", "TIMESTAMP(3)"),
		f("ok", "BOOLEAN"), f("tags", "ARRAY<STRING>"), f("d", "DOUBLE"))
	c, err := New("csv", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Encode(nil, []types.Value{types.NewInt(1), types.NewString(`say "hi", then go`), mustDec(t, "12.5"),
		mustTS(t, "2024-01-31 10:15:00.5"), types.NewBool(true),
		types.NewArray([]types.Value{types.NewString("a"), types.NewString("b")}), types.NewFloat(1e10)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `1,"say ""hi"", then go",12.50,2024-01-31 10:15:00.5,true,a;b,1.0E10`; string(b) != want {
		t.Fatalf("encoded\n%s\nwant\n%s", b, want)
	}
	b, _ = c.Encode(nil, []types.Value{types.Null, types.NewString(""), types.Null, types.Null, types.Null, types.Null, types.Null})
	if want := `,"",,,,,`; string(b) != want {
		t.Fatalf("encoded %s, want %s", b, want)
	}
}

func TestCSVDecode(t *testing.T) {
	s := types.NewSchema(f("id", "INT"), f("name", "STRING"), f("price", "DECIMAL(10, 2)"))
	strict, _ := New("csv", s, nil)
	lenient, _ := New("csv", s, map[string]string{"csv.ignore-parse-errors": "true"})
	comments, _ := New("csv", s, map[string]string{"csv.allow-comments": "true"})
	for _, tc := range []struct {
		c    Codec
		in   string
		want string // rendered values, "skip", or "error: ..."
	}{
		{strict, "1,Alice,9.99", "1|Alice|9.99"},
		{strict, " 2 , Bob ,1\r\n", "2| Bob |1.00"},
		{strict, `3,"multi` + "\n" + `line",0`, "3|multi\nline|0.00"},
		{strict, ",,", "NULL||NULL"},
		{strict, "", "skip"},
		{strict, "# not a comment,x,1", "error: csv: column \"id\": \"# not a comment\" is not a INT: invalid syntax"},
		{comments, "# a comment", "skip"},
		{strict, "1,Alice", "error: csv: Row length mismatch. 3 fields expected but was 2."},
		{strict, `1,"open,2`, "error: csv at byte 2: a quoted field is not closed"},
		{strict, "x,Alice,1", "error: csv: column \"id\": \"x\" is not a INT: invalid syntax"},
		{lenient, "x,Alice,1", "NULL|Alice|1.00"},
		{lenient, "1", "1|NULL|NULL"},
		{lenient, `1,"open`, "skip"},
	} {
		got, err := tc.c.Decode([]byte(tc.in), nil)
		var out string
		switch {
		case err != nil:
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("%q: error %v is not a *Error", tc.in, err)
			}
			out = "error: " + err.Error()
		case got == nil:
			out = "skip"
		default:
			var parts []string
			for i, v := range got {
				if v.IsNull() {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, types.Format(v, s.Fields[i].Type))
				}
			}
			out = strings.Join(parts, "|")
		}
		if out != tc.want {
			t.Errorf("decoding %q:\n got %s\nwant %s", tc.in, out, tc.want)
		}
	}
}

func TestCSVOptions(t *testing.T) {
	s := types.NewSchema(f("id", "INT"))
	for opts, want := range map[string]string{
		"csv.field-delimiter=ab":                                 "must be a single ASCII character",
		"csv.disable-quote-character=true,csv.quote-character='": "cannot both be set",
		"csv.field-delimiter=\"":                                 "cannot be the quote character",
		"csv.allow-coments=true":                                 `unknown option "csv.allow-coments" for format "csv"`,
	} {
		o := map[string]string{}
		for _, kv := range strings.Split(opts, ",") {
			k, v, _ := strings.Cut(kv, "=")
			o[k] = v
		}
		_, err := New("csv", s, o)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", opts, err, want)
		}
	}
	if _, err := New("csv", types.NewSchema(f("m", "MAP<STRING, INT>")), nil); err == nil || !strings.Contains(err.Error(), "does not support column \"m\"") {
		t.Errorf("MAP column: %v", err)
	}
}

func TestRecordComplete(t *testing.T) {
	c, _ := New("csv", types.NewSchema(f("a", "STRING"), f("b", "STRING")), nil)
	for in, want := range map[string]bool{
		"a,b\n":              true,
		"\"a\nb\",c\n":       true,
		"\"a\n":              false,
		"\"a\"\"\n":          false,
		"\"a\"\"\",x\n":      true,
		"ab\"c,d\n":          true,
		"x,\"open\n":         false,
		"x,\"open\nmore\"\n": true,
	} {
		if got := RecordComplete(c, []byte(in)); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
	j, _ := New("json", types.NewSchema(f("a", "STRING")), nil)
	if !RecordComplete(j, []byte("{\"a\":\"\n")) {
		t.Error("json records are lines")
	}
}
