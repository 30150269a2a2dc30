package webpage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pageDirs are the packages that render pages: the payer's and the
// merchant dashboard.
var pageDirs = []string{"../checkout", "../sandbank", "../linkpage", "../embed", "../dashboard"}

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
