package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Schema returns the JSON Schema of the config file, generated from the Go
// types (their yaml names, the fields of an inline struct among them, and
// doc, enum, minimum and required tags; an enum tag of "kinds" is the
// kinds of source given). The repository keeps it in
// schema/config.schema.json; a test fails when that file is stale.
func Schema(kinds []string) ([]byte, error) {
	defs := map[string]any{}
	root := objectSchema(reflect.TypeFor[Config](), defs, kinds)
	// The one key of a source no field names.
	source := defs["source"].(map[string]any)["properties"].(map[string]any)
	source[respectRobots] = map[string]any{"type": "boolean", "description": respectRobotsDoc}
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = "https://github.com/heedhq/heed/schema/config.schema.json"
	root["title"] = "heed configuration"
	root["$defs"] = defs
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

var durationTypes = []reflect.Type{reflect.TypeFor[Duration](), reflect.TypeFor[time.Duration]()}

func objectSchema(t reflect.Type, defs map[string]any, kinds []string) map[string]any {
	props := map[string]any{}
	var required []string
	fields(t, defs, kinds, props, &required)
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// fields adds the properties of t's fields to props, and those of an
// inline struct's as its own.
func fields(t reflect.Type, defs map[string]any, kinds []string, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if _, opts, _ := strings.Cut(f.Tag.Get("yaml"), ","); f.Anonymous && opts == "inline" {
			fields(f.Type, defs, kinds, props, required)
			continue
		}
		name := yamlName(f)
		if name == "" {
			continue
		}
		s := typeSchema(f.Type, defs, kinds)
		if doc := f.Tag.Get("doc"); doc != "" {
			s["description"] = doc
		}
		switch enum := f.Tag.Get("enum"); enum {
		case "":
		case "kinds":
			s["enum"] = kinds
		default:
			s["enum"] = strings.Split(enum, ",")
		}
		if p := f.Tag.Get("pattern"); p != "" {
			s["pattern"] = p
		}
		if m := f.Tag.Get("minimum"); m != "" {
			n, _ := strconv.Atoi(m)
			s["minimum"] = n
		}
		if f.Tag.Get("required") == "true" {
			*required = append(*required, name)
		}
		props[name] = s
	}
}

func typeSchema(t reflect.Type, defs map[string]any, kinds []string) map[string]any {
	if slices.Contains(durationTypes, t) {
		return map[string]any{"oneOf": []any{
			map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`},
			map[string]any{"type": "number", "minimum": 0, "description": "seconds"},
		}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem(), defs, kinds)
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int:
		return map[string]any{"type": "integer"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem(), defs, kinds)}
	case reflect.Map:
		elem := t.Elem()
		if elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		name := strings.ToLower(elem.Name())
		defs[name] = objectSchema(elem, defs, kinds)
		return map[string]any{"type": "object", "additionalProperties": map[string]any{"$ref": "#/$defs/" + name},
			"propertyNames": map[string]any{"pattern": `^[A-Za-z0-9_-][A-Za-z0-9._-]*$`}}
	case reflect.Struct:
		return objectSchema(t, defs, kinds)
	}
	return map[string]any{}
}
