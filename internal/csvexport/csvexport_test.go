package csvexport

import (
	"encoding/csv"
	"strings"
	"testing"
	"unicode/utf8"
)

var cellCases = []struct {
	name, in, want string
}{
	{"Equals", "=1+1", "'=1+1"},
	{"Plus", "+7", "'+7"},
	{"MinusFormula", "-1+cmd|' /C calc'!A0", "'-1+cmd|' /C calc'!A0"},
	{"LoneMinus", "-", "'-"},
	{"At", "@SUM(A1)", "'@SUM(A1)"},
	{"FullWidthEquals", "\uff1d1+1", "'\uff1d1+1"},
	{"LeadingTab", "\tdata", "'\tdata"},
	{"LeadingCR", "\rdata", "'\rdata"},
	{"SpaceThenEquals", " =1+1", "' =1+1"},
	{"NoBreakSpaceThenEquals", "\u00a0=1+1", "'\u00a0=1+1"},
	{"EmSpaceThenEquals", "\u2003=1+1", "'\u2003=1+1"},
	{"ZeroWidthSpaceThenEquals", "\u200b=1+1", "'\u200b=1+1"},
	{"ByteOrderMarkThenEquals", "\ufeff=1+1", "'\ufeff=1+1"},
	{"BidiOverrideThenEquals", "\u202e=1+1", "'\u202e=1+1"},
	{"ControlThenPlus", "\x01+1", "'\x01+1"},
	{"QuoteThenPlus", `"+1`, `'"+1`},
	{"SemicolonThenEquals", "a;=1+1", "a;'=1+1"},
	{"CommaThenEquals", "a,=1+1", "a,'=1+1"},
	{"TabThenEquals", "a\t=1+1", "a\t'=1+1"},
	{"NewlineThenAt", "a\n@x", "a\n'@x"},
	{"SemicolonSpaceThenMinus", "a; -x", "a;' -x"},
	{"SemicolonNoBreakSpaceThenEquals", "a;\u00a0=1+1", "a;'\u00a0=1+1"},
	{"FormulaThenSemicolonFormula", "=1;=2", "'=1;'=2"},
	{"LeadingTabThenEquals", "\t=1", "'\t'=1"},

	// Values that cannot start a formula stay as they are.
	{"NegativeAmount", "-150.00", "-150.00"},
	{"NegativeWhole", "-3", "-3"},
	{"Amount", "150.00", "150.00"},
	{"Empty", "", ""},
	{"Text", "Order 42", "Order 42"},
	{"InnerMinus", "a-b", "a-b"},
	{"Email", "payer@example.com", "payer@example.com"},
	{"Time", "2026-03-01T10:00:15Z", "2026-03-01T10:00:15Z"},
	{"Cyrillic", "Книги; две штуки", "Книги; две штуки"},
	{"CommaText", "a, b", "a, b"},
	{"InnerEquals", "a=b", "a=b"},
}

// TestCell: a cell a formula could start in gets an apostrophe, whatever
// blank precedes the formula and wherever a separator splits the cell; a
// number and plain text stay as they are.
func TestCell(t *testing.T) {
	t.Parallel()
	for _, c := range cellCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := Cell(c.in); got != c.want {
				t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestWriterRoundTrip: a CSV reader gets every cell back whole, as Cell
// made it, and the separators and line breaks inside cells do not split
// them.
func TestWriterRoundTrip(t *testing.T) {
	t.Parallel()
	records := [][]string{{"name", "in"}}
	for _, c := range cellCases {
		records = append(records, []string{c.name, c.in})
	}
	out := write(t, records)
	got, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("read: %v\n%s", err, out)
	}
	if len(got) != len(records) {
		t.Fatalf("read %d records, want %d\n%s", len(got), len(records), out)
	}
	for i, c := range cellCases {
		// encoding/csv reads \r\n inside a quoted field as \n.
		want := strings.ReplaceAll(c.want, "\r\n", "\n")
		if r := got[i+1]; len(r) != 2 || r[0] != c.name || r[1] != want {
			t.Errorf("record %d = %q, want [%q %q]", i+1, r, c.name, want)
		}
	}
}

// TestWriterUnderEverySeparator reads the file as the least careful
// spreadsheet would: split at `,`, `;` or tab and at line breaks, quotes
// ignored (kept, or dropped from a piece's ends). No piece may start a
// formula; numbers stay numbers.
func TestWriterUnderEverySeparator(t *testing.T) {
	t.Parallel()
	var row []string
	for _, c := range cellCases {
		row = append(row, c.in)
	}
	out := write(t, [][]string{row})
	for _, sep := range []string{",", ";", "\t"} {
		for _, piece := range naiveSplit(out, sep) {
			for _, cell := range []string{piece, strings.Trim(piece, `"`)} {
				if startsFormula(cell) {
					t.Errorf("split at %q: cell %q starts a formula\n%s", sep, cell, out)
				}
			}
		}
	}
	if !strings.Contains(out, `"-150.00"`) {
		t.Errorf("the negative amount is not written as the number it is:\n%s", out)
	}
}

func write(t *testing.T, records [][]string) string {
	t.Helper()
	var out strings.Builder
	w := NewWriter(&out)
	for _, r := range records {
		w.Write(r)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// naiveSplit splits text at sep and at every line break.
func naiveSplit(text, sep string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(sep+"\r\n", r) })
}

// startsFormula is how a spreadsheet reads a cell, independently of Cell:
// blanks and quotes skipped, a formula character first, and not a number.
func startsFormula(s string) bool {
	if isNumber(strings.Trim(s, `"`)) {
		return false
	}
	for _, r := range s {
		if r == '\t' || r == '\r' {
			return true
		}
		if blank(r) || r == '"' {
			continue
		}
		return strings.ContainsRune(formulaStarts, r)
	}
	return false
}

// FuzzCell: whatever the text, a CSV reader gets it back with apostrophes
// added only, and a reader that splits at any separator gets no piece that
// starts a formula.
func FuzzCell(f *testing.F) {
	for _, c := range cellCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		out := write(t, [][]string{{s}})
		rec, err := csv.NewReader(strings.NewReader(out)).Read()
		if err != nil {
			t.Fatalf("read %q: %v", out, err)
		}
		want := strings.ReplaceAll(Cell(s), "\r\n", "\n")
		if len(rec) != 1 || rec[0] != want {
			t.Fatalf("read %q = %q, want one cell %q", out, rec, want)
		}
		if strings.ReplaceAll(Cell(s), "'", "") != strings.ReplaceAll(s, "'", "") {
			t.Fatalf("Cell(%q) = %q changes more than apostrophes", s, Cell(s))
		}
		for _, sep := range []string{",", ";", "\t"} {
			for _, piece := range naiveSplit(out, sep) {
				for _, cell := range []string{piece, strings.Trim(piece, `"`)} {
					if startsFormula(cell) {
						t.Fatalf("%q split at %q: cell %q starts a formula", s, sep, cell)
					}
				}
			}
		}
	})
}
