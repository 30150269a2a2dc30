package webpage

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paydhq/payd/money"
)

// numberFormat is how a language writes an amount.
type numberFormat struct {
	group, decimal string
	// signs writes the currency's sign after the number ("1 500,00 ₽");
	// without it the ISO code follows ("1,500.00 RUB").
	signs bool
}

// The separators of CLDR for these languages: Russian and Kazakh group
// thousands with a no-break space (U+00A0) and write a decimal comma;
// English groups with a comma and keeps the ISO code after the number, as
// the pages wrote it before.
var numberFormats = map[string]numberFormat{
	"ru": {group: "\u00a0", decimal: ",", signs: true},
	"kk": {group: "\u00a0", decimal: ",", signs: true},
	"en": {group: ",", decimal: "."},
}

var currencySigns = map[string]string{"RUB": "₽", "KZT": "₸", "USD": "$", "EUR": "€"}

// Amount writes minor units of currency (two fraction digits, as every
// currency of the contract has) for a reader of the page's language:
// "1 500,00 ₽" and "15 000,00 ₸" in Russian and Kazakh, with no-break
// spaces, and "1,500.00 RUB" in English. Integers all the way: no float
// ever holds an amount.
func (l Locale) Amount(minor int64, currency string) string {
	f := numberFormats[l.Lang()]
	var b strings.Builder
	u := uint64(minor)
	if minor < 0 {
		b.WriteByte('-')
		u = -u
	}
	units := strconv.FormatUint(u/100, 10)
	for i, d := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteString(f.group)
		}
		b.WriteRune(d)
	}
	b.WriteString(f.decimal)
	cents := u % 100
	b.WriteByte(byte('0' + cents/10))
	b.WriteByte(byte('0' + cents%10))
	if sign, ok := currencySigns[currency]; ok && f.signs {
		b.WriteString("\u00a0" + sign)
	} else {
		b.WriteString("\u00a0" + currency)
	}
	return b.String()
}

// Errors of ParseAmount.
var (
	// ErrAmountFormat is an entry that is not a sum in the page's language.
	ErrAmountFormat = errors.New("not an amount")
	// ErrAmountAmbiguous is an entry with a dot or comma before three
	// final digits that could part thousands or a fraction: "1,500" on a
	// Russian page is 1 500 in English and 1,5 by the page's own comma.
	ErrAmountAmbiguous = errors.New("the amount could be read two ways")
)

// groupSpace reports whether r is a space that groups digits: a space, a
// no-break space (U+00A0, which Amount writes), a narrow no-break space
// (U+202F) or a thin space (U+2009), as keyboards and copied text bring.
func groupSpace(r rune) bool {
	return r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009'
}

// ParseAmount reads a sum the payer typed on a page of l's language into
// minor units (two fraction digits, as Amount writes), in integers only.
// It reads what Amount writes, and what people type, by these rules
// (docs/links.md, Sums as payers type them):
//
//   - Spaces around the entry are ignored. Inside it, digits may be
//     grouped in thousands: 1 to 3 digits, then groups of exactly 3. A
//     space of any kind (groupSpace) groups in every language; in English
//     a comma groups too ("2,500", "1,500.5").
//   - The fraction is one or two digits after a decimal mark at the end:
//     the page's own (a comma in Russian and Kazakh: "2 500,00"; a dot
//     in English) or a dot in every language, so the contract's plain
//     "2500.00" reads everywhere. A comma before one or two final digits
//     is a fraction in English too ("1500,50"): a grouping comma would
//     need three, so the entry has one reading. A comma that groups the
//     entry cannot also end it ("1,500,50").
//   - A dot or a comma before exactly three final digits that the
//     language does not group with, alone in an otherwise well-formed
//     entry ("1,500" or "1 000,500" in Russian, "1.500" anywhere), could
//     be thousands or a fraction: ErrAmountAmbiguous, never a guess.
//   - Anything else is ErrAmountFormat: a sign, letters or a currency,
//     two marks in a row, a mark first or last, another language's
//     grouping ("2,500.00" in Russian, "2.500,00" anywhere), more than
//     two fraction digits, more than 13 whole digits, or zero.
func (l Locale) ParseAmount(s string) (int64, error) {
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || groupSpace(r) })
	commaGroups := numberFormats[l.Lang()].group == ","
	// runs are the entry's digit runs; marks[i] stands between runs[i]
	// and runs[i+1].
	var runs []string
	var marks []rune
	start := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
		case r == '.' || r == ',' || groupSpace(r):
			if i == start {
				return 0, ErrAmountFormat
			}
			runs, marks = append(runs, s[start:i]), append(marks, r)
			start = i + utf8.RuneLen(r)
		default:
			return 0, ErrAmountFormat
		}
	}
	if start == len(s) {
		return 0, ErrAmountFormat
	}
	runs = append(runs, s[start:])

	groups := func(r rune) bool { return groupSpace(r) || (commaGroups && r == ',') }
	whole, wholeMarks, frac := runs, marks, ""
	if n := len(marks); n > 0 && !groupSpace(marks[n-1]) && len(runs[n]) <= 2 {
		if marks[n-1] == ',' && commaGroups && strings.ContainsRune(string(marks[:n-1]), ',') {
			return 0, ErrAmountFormat
		}
		whole, wholeMarks, frac = runs[:n], marks[:n-1], runs[n]
	}
	if !grouped(whole, wholeMarks, groups) {
		if ambiguous(runs, marks, groups) {
			return 0, ErrAmountAmbiguous
		}
		return 0, ErrAmountFormat
	}
	for len(frac) < 2 {
		frac += "0"
	}
	sum, err := money.ParseValue(strings.Join(whole, "") + "." + frac)
	if err != nil || sum == 0 {
		return 0, ErrAmountFormat
	}
	return sum, nil
}

// grouped reports whether runs, parted by marks, are one whole number:
// a single run, or 1 to 3 digits and then groups of exactly 3, each after
// a mark that groups.
func grouped(runs []string, marks []rune, groups func(rune) bool) bool {
	if len(marks) == 0 {
		return true
	}
	if len(runs[0]) > 3 {
		return false
	}
	for i, m := range marks {
		if !groups(m) || len(runs[i+1]) != 3 {
			return false
		}
	}
	return true
}

// ambiguous reports whether the entry's one dot or comma stands before
// its last three digits and does not group in the page's language, while
// read as a grouping mark it would make a well-formed number: that entry
// is thousands in one reading and a fraction in another.
func ambiguous(runs []string, marks []rune, groups func(rune) bool) bool {
	n := len(marks)
	if n == 0 || len(runs[n]) != 3 || groups(marks[n-1]) {
		return false
	}
	for _, m := range marks[:n-1] {
		if !groupSpace(m) {
			return false
		}
	}
	return grouped(runs, marks, func(rune) bool { return true })
}
