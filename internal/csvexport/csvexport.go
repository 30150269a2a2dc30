// Package csvexport writes the CSV files payd hands to merchants (the
// dashboard's payments export, settlement registers) so that a spreadsheet
// opens every cell as data and never as a formula (CSV injection). It is the
// one place that decides what a cell may look like; every CSV writer of the
// service goes through it.
//
// Two things together keep a cell inert:
//
//   - Every field is quoted. Spreadsheets pick the separator from the
//     locale (`;` in ru, `,` elsewhere, tab on paste), and a field that
//     encoding/csv leaves bare because it has no comma, such as `a;=1+1`,
//     becomes two cells, the second a formula, when read with `;`. A quoted
//     field stays one cell whatever the separator.
//   - Where a formula could start, at the cell's start or after a separator
//     inside it, an apostrophe goes first (Cell), which makes the cell, or
//     the piece a reader that ignores quotes splits off, text.
package csvexport

import (
	"bufio"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// formulaStarts are the characters a spreadsheet starts a formula (or a DDE
// call) from, with the full-width forms that Excel in East Asian locales
// takes for them.
const formulaStarts = "=+-@\uff1d\uff0b\uff0d\uff20"

// separators are the characters a spreadsheet may split a line into cells
// at, and the line breaks of a reader that ignores quotes: what follows one
// of them may be the start of a cell.
const separators = ",;\t\r\n"

// Cell returns s as it can be written to a cell: unchanged, or with an
// apostrophe at each place a formula could start, which a spreadsheet reads
// as "the rest is text". A formula could start
//
//   - at the start of s, or right after any separator inside it, when the
//     first character that is not blank is a tab or a carriage return
//     (OWASP's list of leading characters);
//   - at the start of s, or right after any separator inside it (`,` `;`
//     tab, a line break), when the first character that is not blank is one
//     of = + - @ (or their full-width forms).
//
// The apostrophe goes right after the separator, so that a reader that
// splits the cell there, ignoring the quotes, still gets a cell that
// begins with it: `a;=1+1` becomes `a;'=1+1`. Only text that would
// otherwise start a formula is changed.
//
// Blanks are what a spreadsheet may skip or show as nothing: Unicode
// spaces (U+00A0 no-break space among them), control characters and
// invisible format characters (zero-width space, bidirectional controls,
// the byte-order mark). A double quote is skipped too: a reader may drop
// it.
//
// A plain decimal number, such as the amount "-150.00", is left alone: it
// cannot hold a formula, and a register's negative amounts must stay
// numbers the spreadsheet can add up.
func Cell(s string) string {
	if isNumber(s) {
		return s
	}
	var at []int // byte offsets an apostrophe goes before, ascending
	mark := func(i int) {
		if len(at) == 0 || at[len(at)-1] != i {
			at = append(at, i)
		}
	}
	segment, start := true, 0
	for i, r := range s {
		switch {
		case strings.ContainsRune(separators, r):
			if segment && (r == '\t' || r == '\r') {
				// A tab or carriage return leading a cell, or a piece
				// a reader splits off, is itself a formula start.
				mark(start)
			}
			segment, start = true, i+utf8.RuneLen(r)
		case blank(r) || r == '"':
			// Skipped, as a spreadsheet may skip it before a formula; a
			// reader may drop quotes.
		case segment && strings.ContainsRune(formulaStarts, r):
			mark(start)
			segment = false
		default:
			segment = false
		}
	}
	if len(at) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(at))
	prev := 0
	for _, i := range at {
		b.WriteString(s[prev:i])
		b.WriteByte('\'')
		prev = i
	}
	b.WriteString(s[prev:])
	return b.String()
}

func blank(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// isNumber reports a plain decimal number: an optional minus, digits, and
// optionally a dot and digits.
func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, dot := strings.Cut(s, ".")
	return digits(whole) && (!dot || digits(frac))
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Writer writes records as CSV: comma-separated, every field quoted (a
// quote inside doubled) and passed through Cell, lines ending in "\n".
// encoding/csv's Reader reads it back.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter returns a Writer to w. Call Flush to send what is buffered.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriter(w)}
}

// Write writes one record. An error sticks: later writes do nothing and
// Error returns it.
func (w *Writer) Write(record []string) error {
	if w.err != nil {
		return w.err
	}
	for i, field := range record {
		if i > 0 {
			w.w.WriteByte(',')
		}
		w.w.WriteByte('"')
		w.w.WriteString(strings.ReplaceAll(Cell(field), `"`, `""`))
		w.err = w.w.WriteByte('"')
	}
	if w.err == nil {
		w.err = w.w.WriteByte('\n')
	}
	return w.err
}

// Flush sends the buffered records to the underlying writer.
func (w *Writer) Flush() {
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
}

// Error returns the first error of a Write or Flush.
func (w *Writer) Error() error { return w.err }
