package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// readJSON decodes the body of r into v strictly: the body must be one
// JSON object with only known fields, within the size limit (the body is
// already a MaxBytesReader). A Content-Type other than JSON is refused,
// which also keeps browsers' cross-site form posts out.
func readJSON(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return &apiError{status: http.StatusUnsupportedMediaType, code: v1.CodeInvalid,
				message:    fmt.Sprintf("Content-Type %q is not supported; the body must be JSON.", ct),
				suggestion: "Send the header Content-Type: application/json (curl --json sets it)."}
		}
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return err
		}
		return badRequest("The request body holds more than one JSON value.", "Send exactly one JSON object.")
	}
	return nil
}

func decodeError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return err
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return badRequest(fmt.Sprintf("The request body is not valid JSON: %v (at byte %d).", se, se.Offset),
			"Send one JSON object.")
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		field := te.Field
		if field == "" {
			return badRequest(fmt.Sprintf("The request body must be a JSON object, not a JSON %s.", te.Value), "Send one JSON object.")
		}
		return invalid(fmt.Sprintf("Field %q must be %s, not a JSON %s.", field, jsonKind(te.Type.Kind().String()), te.Value), "")
	}
	switch {
	case errors.Is(err, io.EOF):
		return badRequest("The request body is empty.", "Send one JSON object.")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("The request body is truncated JSON.", "Send one complete JSON object.")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return invalid(fmt.Sprintf("Unknown field %s in the request body.", name),
			"Remove the field; see docs/operating.md for the fields of each request.")
	}
	return badRequest("The request body could not be decoded: "+err.Error(), "Send one JSON object.")
}

// jsonKind names a Go kind as a JSON type.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "ptr":
		return "a value"
	}
	return "a number"
}

// formatBytes renders a size as "1 MiB", "512 KiB" or "100 bytes".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
