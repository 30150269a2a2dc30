package webpage

import (
	"encoding/json"
	"io/fs"
	"testing/fstest"

	"go/ast"
	"go/parser"
	"go/token"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pageDirs are the packages that render pages: the payer's and the
// merchant dashboard, and the operator's back office.
var pageDirs = []string{"../checkout", "../sandbank", "../linkpage", "../embed", "../dashboard", "../office"}

// templateKey finds the texts a template asks the catalogue for.
var templateKey = regexp.MustCompile(`\.L\.T "((?:[^"\\]|\\.)*)"`)

// TestPagesAskOnlyForCatalogueTexts checks that every text the pages ask
// for, in their templates and in their Go code (calls of T and of the
// pages' message functions with literal texts), is in the catalogue: a text
// left out would show in English on a Russian or Kazakh page. Names
// passed through on purpose (a payment scheme's title, a method label)
// are not literal arguments of these calls and are not checked.
func TestPagesAskOnlyForCatalogueTexts(t *testing.T) {
	t.Parallel()
	asked := 0
	for _, dir := range pageDirs {
		tmpls, err := filepath.Glob(filepath.Join(dir, "templates", "*.html"))
		if err != nil || len(tmpls) == 0 {
			t.Fatalf("no templates in %s: %v", dir, err)
		}
		for _, path := range tmpls {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range templateKey.FindAllStringSubmatch(string(src), -1) {
				asked++
				if key, _ := strconv.Unquote(`"` + m[1] + `"`); !HasMessage(key) {
					t.Errorf("%s asks for %q, which the catalogue lacks", path, key)
				}
			}
		}
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "T" && sel.Sel.Name != "message" && sel.Sel.Name != "messageOf") {
					return true
				}
				for i, arg := range call.Args {
					lit, ok := arg.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					key, _ := strconv.Unquote(lit.Value)
					// T's arguments after the first, and message's
					// address of the next page, are not texts.
					if key == "" || (sel.Sel.Name == "T" && i > 0) {
						continue
					}
					asked++
					if !HasMessage(key) {
						t.Errorf("%s asks for %q, which the catalogue lacks", fset.Position(lit.Pos()), key)
					}
				}
				return true
			})
		}
	}
	if asked < 40 {
		t.Fatalf("found only %d texts asked for: the scan lost its way", asked)
	}
}

// readLocales is the catalogue's files by language and id.
func readLocales(t *testing.T) map[string]map[string]gotextMessage {
	t.Helper()
	names, err := fs.Glob(locales, "locales/*/*.gotext.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no catalogue files: %v", err)
	}
	out := map[string]map[string]gotextMessage{}
	for _, name := range names {
		src, err := fs.ReadFile(locales, name)
		if err != nil {
			t.Fatal(err)
		}
		var f gotextFile
		if err := json.Unmarshal(src, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if out[f.Language] == nil {
			out[f.Language] = map[string]gotextMessage{}
		}
		for _, m := range f.Messages {
			out[f.Language][m.ID] = m
		}
	}
	return out
}

// texts is every text t may show: its one text, or each case of its select.
func (t gotextText) texts() []string {
	if t.Select == nil {
		return []string{t.Msg}
	}
	var out []string
	for _, c := range t.Select.Cases {
		out = append(out, c.texts()...)
	}
	return out
}

// TestPluralsCoverEveryForm checks that a text chosen by a count has a
// case for each plural form the language's CLDR rules give a whole
// number (Russian: one, few, many; Kazakh and English: one, other), so
// that "2 платежа" and "5 платежей" each find their words; and that the
// printers choose them.
func TestPluralsCoverEveryForm(t *testing.T) {
	t.Parallel()
	files := readLocales(t)
	forms := map[plural.Form]string{plural.Zero: "zero", plural.One: "one", plural.Two: "two", plural.Few: "few", plural.Many: "many", plural.Other: "other"}
	selects := 0
	for lang, msgs := range files {
		tag := language.MustParse(lang)
		for id, m := range msgs {
			s := m.Translation.Select
			if s == nil {
				continue
			}
			selects++
			for n := range 1000 {
				form := forms[plural.Cardinal.MatchPlural(tag, n, 0, 0, 0, 0)]
				if _, ok := s.Cases[form]; !ok {
					if _, exact := s.Cases["="+strconv.Itoa(n)]; !exact {
						t.Errorf("%s %q: %d is %s, which has no case", lang, id, n, form)
						break
					}
				}
			}
		}
	}
	if selects == 0 {
		t.Fatal("no text of the catalogue is chosen by a count")
	}
	for _, c := range []struct {
		lang string
		n    int
		want string
	}{
		{"ru", 1, "1 день"}, {"ru", 3, "3 дня"}, {"ru", 5, "5 дней"}, {"ru", 21, "21 день"}, {"ru", 11, "11 дней"},
		{"kk", 1, "1 күн"}, {"kk", 5, "5 күн"},
		{"en", 1, "1 day"}, {"en", 2, "2 days"},
	} {
		if got := For(c.lang).T("%d days", c.n); got != c.want {
			t.Errorf("%s T(%%d days, %d) = %q, want %q", c.lang, c.n, got, c.want)
		}
	}
}

// TestCatalogueRefusesBrokenFiles checks that a file a translator broke
// stops the program at start rather than show a wrong text.
func TestCatalogueRefusesBrokenFiles(t *testing.T) {
	t.Parallel()
	ph := `"placeholders":[{"id":"N","string":"%[1]d","argNum":1}]`
	for name, c := range map[string]struct{ path, body string }{
		"not JSON":            {"locales/ru/a.gotext.json", `{`},
		"language elsewhere":  {"locales/ru/a.gotext.json", `{"language":"kk","messages":[]}`},
		"unknown placeholder": {"locales/ru/a.gotext.json", `{"language":"ru","messages":[{"id":"Pay %s","message":"Pay {Arg_1}","translation":"Оплата: {Sum}"}]}`},
		"unclosed brace":      {"locales/ru/a.gotext.json", `{"language":"ru","messages":[{"id":"x","message":"x","translation":"{x"}]}`},
		"no other case": {"locales/ru/a.gotext.json", `{"language":"ru","messages":[{"id":"%d days","message":"{N} days",` + ph +
			`,"translation":{"select":{"feature":"plural","arg":"N","cases":{"one":"{N} день"}}}}]}`},
		"not a plural form": {"locales/ru/a.gotext.json", `{"language":"ru","messages":[{"id":"%d days","message":"{N} days",` + ph +
			`,"translation":{"select":{"feature":"plural","arg":"N","cases":{"several":"{N} дня","other":"{N} дня"}}}}]}`},
		"select by gender": {"locales/ru/a.gotext.json", `{"language":"ru","messages":[{"id":"%d days","message":"{N} days",` + ph +
			`,"translation":{"select":{"feature":"gender","arg":"N","cases":{"other":"{N} дня"}}}}]}`},
		"no id": {"locales/ru/a.gotext.json", `{"language":"ru","messages":[{"message":"x","translation":"y"}]}`},
	} {
		fsys := fstest.MapFS{c.path: {Data: []byte(c.body)}}
		if _, _, err := load(fsys); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	twice := fstest.MapFS{
		"locales/ru/a.gotext.json": {Data: []byte(`{"language":"ru","messages":[{"id":"x","message":"x","translation":"икс"}]}`)},
		"locales/ru/b.gotext.json": {Data: []byte(`{"language":"ru","messages":[{"id":"x","message":"x","translation":"экс"}]}`)},
	}
	if _, _, err := load(twice); err == nil {
		t.Error("one id in two files of a language: loaded")
	}
}
