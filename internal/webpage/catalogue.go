package webpage

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message/catalog"
)

// locales holds every text the pages show, one directory per language of
// payd.Locales and one file per group of pages, in the format of x/text's
// gotext tool (docs/languages.md): each message's id is the English text
// the pages ask for (as they pass it to Locale.T, with Go's verbs), its
// message that text with gotext's {placeholders}, and its translation the
// language's text, or a plural select by the CLDR rules of the language.
// Translators edit these files; the binary carries them and reads them at
// start.
//
//go:embed locales
var locales embed.FS

// catalogue is the files of locales as x/text's message catalogue, with
// English as the fallback of a text a language lacks.
var catalogue, texts = mustLoad(locales)

// gotextFile is one file of locales: gotext's messages.gotext.json.
type gotextFile struct {
	Language string          `json:"language"`
	Messages []gotextMessage `json:"messages"`
}

type gotextMessage struct {
	ID           string              `json:"id"`
	Message      gotextText          `json:"message"`
	Translation  gotextText          `json:"translation"`
	Placeholders []gotextPlaceholder `json:"placeholders"`
}

type gotextPlaceholder struct {
	ID     string `json:"id"`
	String string `json:"string"`
	ArgNum int    `json:"argNum"`
}

// gotextText is a text as gotext writes it: a string, or an object with a
// select of cases by the plural form of one placeholder.
type gotextText struct {
	Msg    string        `json:"msg"`
	Select *gotextSelect `json:"select"`
}

type gotextSelect struct {
	Feature string                `json:"feature"`
	Arg     string                `json:"arg"`
	Cases   map[string]gotextText `json:"cases"`
}

func (t *gotextText) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &t.Msg)
	}
	type plain gotextText
	return json.Unmarshal(b, (*plain)(t))
}

func (t gotextText) empty() bool { return t.Msg == "" && t.Select == nil }

// mustLoad reads the files of fsys into a catalogue, and the set of ids
// each language has a translation for. A file that cannot be read, a
// placeholder a message lacks, or one id with two texts in a language
// stops the program at start (and every test).
func mustLoad(fsys fs.FS) (catalog.Catalog, map[string]map[string]bool) {
	c, t, err := load(fsys)
	if err != nil {
		panic("webpage: catalogue: " + err.Error())
	}
	return c, t
}

func load(fsys fs.FS) (*catalog.Builder, map[string]map[string]bool, error) {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	texts := map[string]map[string]bool{}
	files, err := fs.Glob(fsys, "locales/*/*.gotext.json")
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	seen := map[string]string{} // lang + id: the file that set it
	for _, name := range files {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, nil, err
		}
		var f gotextFile
		if err := json.Unmarshal(src, &f); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		lang := path.Base(path.Dir(name))
		if f.Language != lang {
			return nil, nil, fmt.Errorf("%s: language %q in the directory of %q", name, f.Language, lang)
		}
		tag, err := language.Parse(lang)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if texts[lang] == nil {
			texts[lang] = map[string]bool{}
		}
		for _, m := range f.Messages {
			if m.ID == "" {
				return nil, nil, fmt.Errorf("%s: a message without an id", name)
			}
			if prev, dup := seen[lang+"\x00"+m.ID]; dup {
				return nil, nil, fmt.Errorf("%s: %q is in %s too", name, m.ID, prev)
			}
			seen[lang+"\x00"+m.ID] = name
			if m.Translation.empty() {
				continue
			}
			msg, err := m.assemble(m.Translation)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %q: %w", name, m.ID, err)
			}
			if err := b.Set(tag, m.ID, msg); err != nil {
				return nil, nil, fmt.Errorf("%s: %q: %w", name, m.ID, err)
			}
			texts[lang][m.ID] = true
		}
	}
	return b, texts, nil
}

// assemble is t as a message of the catalogue: its placeholders written
// back as Go's verbs, a select as x/text's plural select.
func (m gotextMessage) assemble(t gotextText) (catalog.Message, error) {
	if t.Select == nil {
		s, err := m.substitute(t.Msg)
		return catalog.String(s), err
	}
	s := t.Select
	if s.Feature != "plural" {
		return nil, fmt.Errorf("select by %q: only plural is known", s.Feature)
	}
	ph := m.placeholder(s.Arg)
	if ph == nil {
		return nil, fmt.Errorf("select by an unknown placeholder %q", s.Arg)
	}
	if _, ok := s.Cases["other"]; !ok {
		return nil, fmt.Errorf("a plural select without its other case")
	}
	keys := make([]string, 0, len(s.Cases))
	for k := range s.Cases {
		keys = append(keys, k)
	}
	// other goes last: x/text takes the first case that matches.
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "other") != (keys[j] == "other") {
			return keys[j] == "other"
		}
		return keys[i] < keys[j]
	})
	var cases []any
	for _, k := range keys {
		if !pluralCase(k) {
			return nil, fmt.Errorf("plural case %q is not one of CLDR's", k)
		}
		sub, err := m.assemble(s.Cases[k])
		if err != nil {
			return nil, err
		}
		cases = append(cases, k, sub)
	}
	return plural.Selectf(ph.ArgNum, ph.String, cases...), nil
}

// pluralCase reports one of CLDR's plural categories, or an exact number
// such as "=0".
func pluralCase(k string) bool {
	switch k {
	case "zero", "one", "two", "few", "many", "other":
		return true
	}
	return strings.HasPrefix(k, "=") && len(k) > 1 && strings.Trim(k[1:], "0123456789") == ""
}

func (m gotextMessage) placeholder(id string) *gotextPlaceholder {
	for i := range m.Placeholders {
		if m.Placeholders[i].ID == id {
			return &m.Placeholders[i]
		}
	}
	return nil
}

// substitute writes the {placeholders} of a text as their Go verbs, and a
// literal percent sign as Go's %%.
func (m gotextMessage) substitute(s string) (string, error) {
	var out strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("an unclosed { in %q", s)
		}
		ph := m.placeholder(strings.TrimSpace(s[i+1 : i+j]))
		if ph == nil {
			return "", fmt.Errorf("unknown placeholder %s in %q", s[i:i+j+1], s)
		}
		out.WriteString(strings.ReplaceAll(s[:i], "%", "%%"))
		out.WriteString(ph.String)
		s = s[i+j+1:]
	}
	out.WriteString(strings.ReplaceAll(s, "%", "%%"))
	return out.String(), nil
}

// HasMessage reports whether the catalogue has key; the pages' tests use
// it to find a text their templates show that was left out of it.
func HasMessage(key string) bool { return texts["en"][key] }

// Translated reports whether the catalogue has key with a text in lang,
// one of payd.Locales: the pages' tests use it to find a text, such as
// the words of an enum's value, that some language lacks.
func Translated(lang, key string) bool { return texts[lang][key] }
