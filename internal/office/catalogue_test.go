package office

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// askedInCode finds the literal texts the Go code asks for: T's first
// argument and the texts given to the signed-out pages and refusals.
var askedInCode = regexp.MustCompile(`(?:\bT\(|\bpage\(http\.\w+, |\brefuse\(w, r, http\.\w+, )"((?:[^"\\]|\\.)*)"`)

// askedInTemplates finds the texts the templates ask for.
var askedInTemplates = regexp.MustCompile(`\.L\.T "((?:[^"\\]|\\.)*)"`)

// TestEveryTextInBothLanguages checks that every text the back office
// shows is in the catalogue in Russian and English, the back office's
// languages: the pages' texts, the words of the API's values, the
// four-eyes actions, notices and the refusals' words. A text left out
// would show in English on a Russian page.
func TestEveryTextInBothLanguages(t *testing.T) {
	var texts []string
	for _, text := range words {
		texts = append(texts, text)
	}
	for _, what := range payd.FourEyesActions() {
		texts = append(texts, what)
	}
	for _, text := range notices {
		texts = append(texts, text)
	}
	for _, text := range codeTexts {
		texts = append(texts, text)
	}
	scanned := 0
	for _, glob := range []string{"templates/*.html", "*.go"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if filepath.Ext(f) == ".go" && len(f) > 8 && f[len(f)-8:] == "_test.go" {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			re := askedInCode
			if filepath.Ext(f) == ".html" {
				re = askedInTemplates
			}
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				text, err := strconv.Unquote(`"` + m[1] + `"`)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				texts = append(texts, text)
				scanned++
			}
		}
	}
	if scanned < 50 {
		t.Fatalf("found only %d texts asked for: the scan lost its way", scanned)
	}
	for _, text := range texts {
		for _, lang := range languages {
			if !webpage.Translated(lang, text) {
				t.Errorf("%q has no text in %s", text, lang)
			}
		}
	}
}
