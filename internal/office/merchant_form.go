package office

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/paydhq/payd"
)

// The settings forms of merchants and shops. An input is named as the
// API's member, dotted as the API's Error names a parameter
// ("chargeback.ratio_bps", "tariffs.0.percent_bps"), so that a refusal's
// parameter finds the input it is about, and the form is shown again
// with what was typed and the API's words next to that input. The office
// checks no value itself: a number that is not one is sent as text, and
// the API names it.

// fieldKind is how an input's text becomes a JSON value.
type fieldKind int

const (
	textField   fieldKind = iota
	numberField           // an integer
	flagField             // a checkbox: true when "1"
	linesField            // a list of texts, one a line
	rowsField             // a list of objects, one row of inputs each (its fields in rows)
)

// field is an input of a settings form, or a list of rows of inputs.
type field struct {
	name string
	kind fieldKind
	// rows are a rowsField's inputs of one row, named within it.
	rows []field
}

// settingsForm is one form of a page, told apart by its "form" input; a
// change sends only its fields.
type settingsForm struct {
	name   string
	fields []field
}

// formBody is the JSON object of a form's post. A top-level input left
// empty is null (the API's default, or no change), one inside an object
// is left out (zero, the default), and a row with every input empty is
// dropped.
func formBody(f settingsForm, in map[string][]string) map[string]any {
	get := func(name string) string {
		if v := in[name]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
	out := map[string]any{}
	for _, fd := range f.fields {
		switch fd.kind {
		case rowsField:
			var rows []any
			for i := 0; i < maxRows; i++ {
				row := map[string]any{}
				for _, c := range fd.rows {
					if v, set := fieldValue(c.kind, get(fd.name+"."+strconv.Itoa(i)+"."+c.name)); set {
						row[c.name] = v
					}
				}
				if len(row) > 0 {
					rows = append(rows, row)
				}
			}
			out[fd.name] = rows
		default:
			v, _ := fieldValue(fd.kind, get(fd.name))
			parent, name, nested := strings.Cut(fd.name, ".")
			if !nested {
				out[fd.name] = v
				continue
			}
			obj, _ := out[parent].(map[string]any)
			if obj == nil {
				obj = map[string]any{}
				out[parent] = obj
			}
			if v != nil && v != false {
				obj[name] = v
			}
		}
	}
	return out
}

// maxRows bounds the rows of a list a form may post.
const maxRows = 50

// fieldValue is an input's text as JSON, and whether anything was
// entered (a box left unticked is false, and not entered).
func fieldValue(kind fieldKind, s string) (any, bool) {
	switch kind {
	case flagField:
		return s == "1", s == "1"
	case numberField:
		if s == "" {
			return nil, false
		}
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.Number(s), true
		}
		return s, true
	case linesField:
		var out []string
		for _, line := range strings.Split(s, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
		if out == nil {
			return nil, false
		}
		return out, true
	default:
		if s == "" {
			return nil, false
		}
		return s, true
	}
}

// formValues are an object of the API as the inputs of its forms hold
// it: by dotted name, a flag "1", a list of texts one a line.
func formValues(v any) map[string]string {
	out := map[string]string{}
	flatten("", v, out)
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(join(k), e, out)
		}
	case []any:
		var lines []string
		for i, e := range x {
			if s, ok := e.(string); ok {
				lines = append(lines, s)
				continue
			}
			flatten(join(strconv.Itoa(i)), e, out)
		}
		if lines != nil {
			out[prefix] = strings.Join(lines, "\n")
		}
	case bool:
		if x {
			out[prefix] = "1"
		}
	case nil:
	default:
		out[prefix] = fmt.Sprint(x)
	}
}

// rowCount is how many rows of list name the values hold.
func rowCount(vals map[string]string, name string) int {
	n := 0
	for k := range vals {
		rest, ok := strings.CutPrefix(k, name+".")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(strings.SplitN(rest, ".", 2)[0])
		if err == nil && i+1 > n && i < maxRows {
			n = i + 1
		}
	}
	return n
}

// formState is what a page's settings forms show: the values of their
// inputs (the object's, or what was typed into the form the API refused)
// and that refusal.
type formState struct {
	Vals map[string]string
	err  *formErr
	// typed is what was posted in the refused form.
	typed map[string]string
}

// of fills the inputs from the object v of the API, but those of the
// refused form keep what was typed.
func (s formState) of(v any) formState {
	vals := formValues(v)
	if s.err != nil {
		for k := range vals {
			if s.err.owns(k) {
				delete(vals, k)
			}
		}
		for k, t := range s.typed {
			vals[k] = t
		}
	}
	s.Vals = vals
	return s
}

// formErr is the API's refusal of a form.
type formErr struct {
	form, param string
	// fields are the refused form's.
	fields []field
	// text says the refusal's code in the page's language; detail is the
	// API's own description.
	text, detail string
}

// owns reports whether the input name is one of the refused form's.
func (e *formErr) owns(name string) bool {
	for _, fd := range e.fields {
		if name == fd.name || fd.kind == rowsField && strings.HasPrefix(name, fd.name+".") {
			return true
		}
	}
	return false
}

// ErrFor is the refusal's description when it is about the input name
// of form.
func (s formState) ErrFor(form, name string) string {
	if s.err == nil || s.err.form != form || s.err.param != name {
		return ""
	}
	return s.err.detail
}

// ErrOf is the refusal of form as the form's heading shows it: with the
// description and its parameter, unless an input of that name shows them
// (has lists the inputs the page shows).
func (s formState) ErrOf(form string, has map[string]bool) string {
	if s.err == nil || s.err.form != form {
		return ""
	}
	if has[s.err.param] {
		return s.err.text
	}
	text := s.err.text + " " + s.err.detail
	if s.err.param != "" {
		text += " (" + s.err.param + ")"
	}
	return text
}

// Input is the input name of form as a template writes it: kind is
// "flag" (a checkbox), "num", "lines" or "text".
func (s formState) Input(form, name, kind string) formInput {
	return formInput{ID: form + "-" + strings.ReplaceAll(name, ".", "-"), Name: name, Kind: kind, Value: s.Vals[name],
		Err: s.ErrFor(form, name)}
}

// formInput is one input: its id, name, kind, value and the API's words
// about it.
type formInput struct{ ID, Name, Kind, Value, Err string }

// inputNames are the names of a form's inputs the page shows, with rows
// rows of each list.
func inputNames(f settingsForm, rows int) map[string]bool {
	out := map[string]bool{}
	for _, fd := range f.fields {
		if fd.kind != rowsField {
			out[fd.name] = true
			continue
		}
		for i := 0; i < rows; i++ {
			for _, c := range fd.rows {
				out[fd.name+"."+strconv.Itoa(i)+"."+c.name] = true
			}
		}
	}
	return out
}

// submit sends the change of the posted form, one of forms named by its
// "form" input: back to done with a notice ("proposed" when it waits for
// a second person), the form again with the API's words when it refused
// a value (show, given the status and the form's state), or the
// refusal's page.
func (q *req) submit(forms map[string]settingsForm, method, path, done string, show func(status int, st formState)) {
	f, ok := forms[q.r.PostForm.Get("form")]
	if !ok {
		q.problem(http.StatusBadRequest, q.l.T(codeTexts[payd.CodeInvalidRequest]))
		return
	}
	a := q.call(method, path, formBody(f, q.r.PostForm))
	switch {
	case a.status == http.StatusAccepted:
		q.redirect(done, "proposed")
	case a.ok():
		q.redirect(done, "done")
	case a.status == http.StatusBadRequest:
		e := a.refusal()
		fe := &formErr{form: f.name, fields: f.fields, param: e.Parameter, text: q.l.T(codeTexts[payd.CodeInvalidRequest]),
			detail: e.Description}
		typed := map[string]string{}
		for k, v := range q.r.PostForm {
			if fe.owns(k) && len(v) > 0 {
				typed[k] = v[0]
			}
		}
		show(a.status, formState{err: fe, typed: typed})
	default:
		q.refused(a)
	}
}
