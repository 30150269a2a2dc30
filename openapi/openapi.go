// Package openapi holds the OpenAPI 3.1 description of the Merchant Payments
// API `/v1` contract and serves it as JSON.
//
// The document is maintained by hand in openapi.yaml, because YAML keeps the
// long descriptions and the many schemas readable in review. The API serves
// the same document as JSON at GET /v1/openapi.json; the conversion is done
// once when the package is initialised so that every request gets identical
// bytes and a broken document fails at start-up rather than on first request.
//
// The package openapitest (in this directory tree) checks HTTP responses
// against this document and is meant for tests of the server packages.
package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed openapi.yaml
var sourceYAML []byte

// documentJSON is the document converted to JSON, computed at init;
// stageJSON holds it as each stage serves it.
var (
	documentJSON []byte
	stageJSON    = map[int][]byte{}
)

// stages are the delivery stages a document is prepared for (v1 is 1).
var stages = []int{1, 2, 5}

func init() {
	b, err := yamlToJSON(sourceYAML, 0)
	if err != nil {
		// The document is embedded at build time, so this can only happen
		// when openapi.yaml itself is broken; the package tests catch that
		// before a binary is shipped.
		panic("openapi: embedded openapi.yaml cannot be converted to JSON: " + err.Error())
	}
	documentJSON = b
	for _, st := range stages {
		if stageJSON[st], err = yamlToJSON(sourceYAML, st); err != nil {
			panic("openapi: embedded openapi.yaml cannot be converted to JSON: " + err.Error())
		}
	}
}

// JSON returns the complete OpenAPI document as JSON, with keys in the order
// in which they appear in openapi.yaml, every stage's operations included.
// Each call returns a fresh copy, so a caller that modifies the slice cannot
// corrupt what later requests receive.
func JSON() []byte {
	return bytes.Clone(documentJSON)
}

// ForStage returns the document as a service at stage serves it: an
// operation marked `x-stage: M<n>` is left out below stage n (its routes do
// not exist there), and a path left without operations goes with it.
// Operations the contract declares in advance carry no mark: they are
// served at every stage and answer 501 before theirs. An unknown stage
// gets the complete document.
func ForStage(stage int) []byte {
	if b, ok := stageJSON[stage]; ok {
		return bytes.Clone(b)
	}
	return JSON()
}

// YAML returns the source document as written. Each call returns a copy.
func YAML() []byte {
	return bytes.Clone(sourceYAML)
}

// yamlToJSON converts a YAML document to JSON while keeping the key order of
// every mapping. Decoding into map[string]any and re-encoding would sort the
// keys alphabetically, which puts "components" before "info" and "paths" and
// makes the served document hard to read.
func yamlToJSON(src []byte, stage int) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, err
	}
	if stage > 0 {
		if err := dropLaterStages(&root, stage); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := writeNode(&buf, &root, ""); err != nil {
		return nil, err
	}
	// The output is produced by hand, so make sure it really is JSON before
	// anyone serves it.
	if !json.Valid(buf.Bytes()) {
		return nil, fmt.Errorf("conversion produced invalid JSON")
	}
	return buf.Bytes(), nil
}

// dropLaterStages removes from paths every operation whose x-stage names a
// stage after stage, and every path left without an operation.
func dropLaterStages(root *yaml.Node, stage int) error {
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return fmt.Errorf("expected one YAML document")
	}
	paths := mappingValue(root.Content[0], "paths")
	if paths == nil {
		return nil
	}
	var keptPaths []*yaml.Node
	for i := 0; i+1 < len(paths.Content); i += 2 {
		item := paths.Content[i+1]
		var kept []*yaml.Node
		ops := 0
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			if httpMethods[k.Value] {
				if x := mappingValue(v, "x-stage"); x != nil {
					n, err := stageNumber(x.Value)
					if err != nil {
						return fmt.Errorf("paths %s %s: %w", paths.Content[i].Value, k.Value, err)
					}
					if n > stage {
						continue
					}
				}
				ops++
			}
			kept = append(kept, k, v)
		}
		if ops == 0 {
			continue
		}
		item.Content = kept
		keptPaths = append(keptPaths, paths.Content[i], item)
	}
	paths.Content = keptPaths
	return nil
}

var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true,
	"options": true, "head": true, "patch": true, "trace": true}

// stageNumber reads an x-stage value: M2, M5.
func stageNumber(v string) (int, error) {
	var n int
	if _, err := fmt.Sscanf(v, "M%d", &n); err != nil || n < 1 {
		return 0, fmt.Errorf("x-stage %q is not M<number>", v)
	}
	return n, nil
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func writeNode(buf *bytes.Buffer, n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("expected exactly one YAML document, got %d", len(n.Content))
		}
		return writeNode(buf, n.Content[0], path)
	case yaml.AliasNode:
		return writeNode(buf, n.Alias, path)
	case yaml.MappingNode:
		buf.WriteByte('{')
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("%s (line %d): mapping key is not a scalar", path, k.Line)
			}
			if k.Tag == "!!merge" {
				return fmt.Errorf("%s (line %d): YAML merge keys are not supported", path, k.Line)
			}
			// yaml.v3 does not reject duplicate keys when decoding into a
			// Node, and a duplicated path or schema name would silently drop
			// one of the definitions.
			if seen[k.Value] {
				return fmt.Errorf("%s (line %d): duplicate key %q", path, k.Line, k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				buf.WriteByte(',')
			}
			// JSON object keys are always strings, whatever YAML type the key
			// scalar has (response codes such as 200 are the usual case).
			if err := writeJSON(buf, k.Value); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeNode(buf, v, path+"/"+escapePointer(k.Value)); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeNode(buf, item, fmt.Sprintf("%s/%d", path, i)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		// Let yaml.v3 resolve the scalar's type (string, int, float, bool,
		// null) exactly as it would when decoding, then encode that value.
		// Timestamps are the exception: JSON has no date type, and an
		// unquoted date in an example must stay the string it was written
		// as rather than become a time.Time re-rendered with a time zone.
		if n.ShortTag() == "!!timestamp" {
			return writeJSON(buf, n.Value)
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("%s (line %d): %w", path, n.Line, err)
		}
		return writeJSON(buf, v)
	default:
		return fmt.Errorf("%s (line %d): unsupported YAML node kind %v", path, n.Line, n.Kind)
	}
}

func writeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	// Patterns and descriptions contain '<', '>' and '&'; the document is
	// served as application/json, not embedded in HTML, so keep them readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	// Encode appends a newline after each value.
	buf.Truncate(buf.Len() - 1)
	return nil
}

// escapePointer escapes a key for use in a JSON Pointer, used only to make
// conversion errors point at the offending place.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
