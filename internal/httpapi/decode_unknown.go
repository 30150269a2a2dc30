package httpapi

import (
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/paydhq/payd"
)

// unknownMember refuses the member at param, which the object of Go type
// owner does not define, naming the closest member it does define when one
// is close enough to be the one meant: a case variant ("Amount") or a
// slip of a character or two ("captur").
func unknownMember(param string, owner reflect.Type) error {
	name, parent := param, ""
	if i := strings.LastIndex(param, "."); i >= 0 {
		parent, name = param[:i+1], param[i+1:]
	}
	if best := closestMember(name, memberNames(owner)); best != "" {
		return payd.Invalid(param, "unknown field %s; did you mean %s%s?", param, parent, best)
	}
	return payd.Invalid(param, "unknown field %s", param)
}

// memberNames lists the JSON member names a struct type defines (its json
// tags, or field names without one), through pointers and embedded
// structs. Anything else defines none.
func memberNames(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			names = append(names, memberNames(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// closestMember returns the known name nearest to name: one equal to it
// but for letter case first, else the one at the smallest edit distance
// when that distance is at most a third of the name's length (and at most
// two), so that "captur" finds "capture" while "foo" finds nothing.
func closestMember(name string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	limit := min(2, utf8.RuneCountInString(name)/3)
	best, bestDist := "", limit+1
	lower := strings.ToLower(name)
	for _, k := range known {
		if d := editDistance(lower, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
