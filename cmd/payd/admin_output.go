package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// answerKind says how to print an answer as text.
type answerKind int

const (
	kindMerchant answerKind = iota
	kindShop
	kindKey
	kindKeyIssued
	kindClock
	kindMerchantList
	kindShopList
	kindKeyList
	kindRoute
	kindRouteList
	kindProviderList
)

// column is one column of a list table: a header and how to read its cell
// from an item.
type column struct {
	header string
	cell   func(item map[string]any) string
}

func field(name string) column {
	return column{strings.ToUpper(name), func(m map[string]any) string { return cellText(name, m[name]) }}
}

func named(header, name string) column {
	c := field(name)
	c.header = header
	return c
}

func yesNo(header, name string) column {
	return column{header, func(m map[string]any) string {
		if v, ok := m[name].(bool); ok && v {
			return "yes"
		}
		return "no"
	}}
}

// liveColumn reads the shop's activation: live keys work once activated_at
// is set.
var liveColumn = column{"LIVE", func(m map[string]any) string {
	if m["activated_at"] != nil {
		return "yes"
	}
	return "no"
}}

// table is how a list answer prints: the noun of an empty list and its
// columns.
type table struct {
	noun    string
	columns []column
}

var tables = map[answerKind]table{
	kindMerchantList: {"merchants", []column{field("id"), field("name"), named("CREATED", "created_at")}},
	kindShopList: {"shops", []column{field("id"), field("region"), field("name"), liveColumn,
		yesNo("BLOCKED", "blocked"), yesNo("SUSPENDED", "payments_suspended")}},
	kindKeyList: {"keys", []column{field("id"), field("mode"), field("hint"), named("CREATED", "created_at"),
		named("EXPIRES", "expires_at"), named("REVOKED", "revoked_at")}},
}

// printJSON prints an answer indented, keeping the server's field order.
func printJSON(w io.Writer, data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return fmt.Errorf("admin: the answer is not JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

func printAnswer(w io.Writer, data []byte, kind answerKind) error {
	if t, ok := tables[kind]; ok {
		return printTable(w, data, t.noun, t.columns)
	}
	fields, err := objectFields(data)
	if err != nil {
		return fmt.Errorf("admin: unexpected answer: %w", err)
	}
	var secret string
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range fields {
		if kind == kindKeyIssued && f.key == "secret" {
			json.Unmarshal(f.raw, &secret)
			continue
		}
		writeField(tw, "", f)
		// The shop's answer has no live field; show the state operators ask
		// about next to the other state flags.
		if kind == kindShop && f.key == "default_currency" {
			live := "no (live keys answer shop_not_live until shops activate)"
			for _, g := range fields {
				if g.key == "activated_at" && string(g.raw) != "null" {
					live = "yes"
				}
			}
			fmt.Fprintf(tw, "live\t%s\n", live)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if kind == kindKeyIssued {
		fmt.Fprintf(w, "\nsecret:  %s\n\n", secret)
		fmt.Fprintln(w, "This secret is shown only once: payd keeps only its hash. Store it now;")
		fmt.Fprintln(w, "if it is lost, issue a new key.")
	}
	return nil
}

func printTable(w io.Writer, data []byte, noun string, columns []column) error {
	var page struct {
		Items      []map[string]any `json:"items"`
		NextCursor *string          `json:"next_cursor"`
	}
	if err := json.Unmarshal(data, &page); err != nil {
		return fmt.Errorf("admin: unexpected answer: %w", err)
	}
	if len(page.Items) == 0 {
		fmt.Fprintf(w, "no %s\n", noun)
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for i, c := range columns {
			fmt.Fprint(tw, sep(i), c.header)
		}
		fmt.Fprintln(tw)
		for _, item := range page.Items {
			for i, c := range columns {
				fmt.Fprint(tw, sep(i), c.cell(item))
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if page.NextCursor != nil && *page.NextCursor != "" {
		fmt.Fprintf(w, "next cursor: %s\n", *page.NextCursor)
	}
	return nil
}

func sep(i int) string {
	if i == 0 {
		return ""
	}
	return "\t"
}

// cellText renders a decoded JSON value for a table cell.
func cellText(name string, v any) string {
	switch v := v.(type) {
	case nil:
		return "-"
	case string:
		if v == "" {
			return "-"
		}
		return timeText(name, v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = cellText("", e)
		}
		return strings.Join(parts, ",")
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// timeText shortens the service's timestamps (RFC 3339 with microseconds)
// to whole seconds; other values pass through.
func timeText(name, v string) string {
	if !strings.HasSuffix(name, "_at") && name != "now" {
		return v
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return v
	}
	return t.UTC().Format(time.RFC3339)
}

type jsonField struct {
	key string
	raw json.RawMessage
}

// objectFields returns the members of a JSON object in the order the server
// wrote them, which follows the contract's field order; a map would shuffle
// them.
func objectFields(data []byte) ([]jsonField, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object")
	}
	var fields []jsonField
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		fields = append(fields, jsonField{key, raw})
	}
	return fields, nil
}

// writeField writes one key/value line, flattening nested objects into
// dotted keys (settings.requests_per_minute).
func writeField(w io.Writer, prefix string, f jsonField) {
	key := prefix + f.key
	raw := bytes.TrimSpace(f.raw)
	if len(raw) > 0 && raw[0] == '{' {
		nested, err := objectFields(raw)
		if err == nil {
			if len(nested) == 0 {
				fmt.Fprintf(w, "%s\t(defaults)\n", key)
			}
			for _, n := range nested {
				writeField(w, key+".", n)
			}
			return
		}
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		fmt.Fprintf(w, "%s\t%s\n", key, raw)
		return
	}
	if list, ok := v.([]any); ok && len(list) == 0 {
		fmt.Fprintf(w, "%s\t(none)\n", key)
		return
	}
	fmt.Fprintf(w, "%s\t%s\n", key, cellText(f.key, v))
}
