package payd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// selfService are the audit actions that are no change of a shop's data
// or of other users: a user's own sign-in, password and second factor,
// and what the service records of them. They need no permission.
var selfService = map[AuditAction]bool{
	AuditSetPassword: true, AuditEnableTOTP: true, AuditSignIn: true, AuditSignInFailed: true,
	AuditSecondFactorFailed: true, AuditSecondFactorEnded: true, AuditAccountLocked: true, AuditSignOut: true,
}

// TestEveryActionHasAPermission reads the package's source for its
// AuditAction constants: each is in actionPerms, or one of selfService.
// A change added without its line in the table would otherwise be
// guarded only by Permission's fallback.
func TestEveryActionHasAPermission(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "AuditAction" {
					continue
				}
				for i, name := range v.Names {
					lit, ok := v.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: %s is not a string literal", f, name.Name)
					}
					a := AuditAction(strings.Trim(lit.Value, `"`))
					found++
					_, inTable := actionPerms[a]
					if inTable == selfService[a] {
						t.Errorf("%s (%q): in actionPerms %v, self-service %v; want exactly one", name.Name, a, inTable, selfService[a])
					}
				}
			}
		}
	}
	if found < len(actionPerms)+len(selfService) {
		t.Errorf("found %d AuditAction constants, fewer than the tables name (%d)", found, len(actionPerms)+len(selfService))
	}
}
