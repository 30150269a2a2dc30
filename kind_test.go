package payd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kindList is one kind's list as strings, with its Valid when it has one.
type kindList struct {
	values []string
	valid  func(string) bool
	// aliases are constants of the kind its list leaves out on purpose.
	aliases []string
}

func listOf[K ~string](all func() []K, valid func(K) bool, aliases ...string) kindList {
	l := kindList{aliases: aliases}
	for _, v := range all() {
		l.values = append(l.values, string(v))
	}
	if valid != nil {
		l.valid = func(s string) bool { return valid(K(s)) }
	}
	return l
}

// kindLists are the string kinds of the domain with their lists, by the
// type's name.
var kindLists = map[string]kindList{
	"PaymentStatus":         listOf(PaymentStatusAll, PaymentStatus.Valid),
	"RefundStatus":          listOf(RefundStatusAll, RefundStatus.Valid),
	"DisputeKind":           listOf(DisputeKindAll, DisputeKind.Valid),
	"DisputeStatus":         listOf(DisputeStatusAll, DisputeStatus.Valid),
	"LinkStatus":            listOf(LinkStatusAll, LinkStatus.Valid),
	"LinkState":             listOf(LinkStateAll, nil),
	"PayoutStatus":          listOf(PayoutStatusAll, PayoutStatus.Valid),
	"DestinationType":       listOf(DestinationTypeAll, nil, "DestinationCardToken"),
	"SettlementState":       listOf(SettlementStateAll, SettlementState.Valid),
	"Mode":                  listOf(ModeAll, Mode.Valid),
	"Region":                listOf(RegionAll, Region.Valid),
	"Role":                  listOf(RoleAll, func(r Role) bool { _, err := ParseRole(string(r)); return err == nil }),
	"Permission":            listOf(PermissionAll, nil),
	"SessionState":          listOf(SessionStateAll, nil),
	"ShopAction":            listOf(ShopActionAll, nil),
	"ProviderStatus":        listOf(ProviderStatusAll, nil),
	"EventType":             listOf(EventTypeAll, EventType.Valid),
	"SandboxKind":           listOf(SandboxKindAll, nil),
	"WebhookDeliveryState":  listOf(WebhookDeliveryStateAll, nil),
	"EventDeliveryStatus":   listOf(EventDeliveryStatusAll, nil),
	"EvidenceState":         listOf(EvidenceStateAll, nil),
	"NotificationKind":      listOf(NotificationKindAll, nil),
	"FreezeReason":          listOf(FreezeReasonAll, FreezeReason.Valid),
	"SandboxOutcome":        listOf(SandboxOutcomeAll, SandboxOutcome.Valid),
	"WebhookEndpointStatus": listOf(WebhookEndpointStatusAll, nil),
	"KeyState":              listOf(KeyStateAll, nil),
	"MethodType":            listOf(MethodTypeAll, nil),
}

// TestKindListsHaveEveryConstant reads the package's constants of each
// kind and checks its list against them: a value declared but left out
// of the list (or listed twice, or listed but not declared) fails here,
// as does a Valid that disagrees with the list.
func TestKindListsHaveEveryConstant(t *testing.T) {
	declared := map[string]map[string]string{} // kind → constant → value
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				kind := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					kind = id.Name
				}
				// The method types are untyped constants (method.go).
				if vs.Type == nil && len(vs.Names) == 1 && strings.HasPrefix(vs.Names[0].Name, "Method") {
					kind = "MethodType"
				}
				if _, ok := kindLists[kind]; !ok {
					continue
				}
				for i, name := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: %s is not a string literal", path, name.Name)
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					if declared[kind] == nil {
						declared[kind] = map[string]string{}
					}
					declared[kind][name.Name] = v
				}
			}
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(kindLists)) {
		l := kindLists[kind]
		consts := declared[kind]
		if len(consts) == 0 {
			t.Errorf("%s: no constants found", kind)
			continue
		}
		want := map[string]bool{}
		for name, v := range consts {
			if !slices.Contains(l.aliases, name) {
				want[v] = true
			}
		}
		seen := map[string]bool{}
		for _, v := range l.values {
			if seen[v] {
				t.Errorf("%s: %q is listed twice", kind, v)
			}
			seen[v] = true
			if !want[v] {
				t.Errorf("%s: %q is listed but no constant of the kind has it", kind, v)
			}
		}
		for v := range want {
			if !seen[v] {
				t.Errorf("%s: %q is declared but %sAll lacks it", kind, v, kind)
			}
		}
		if l.valid == nil {
			continue
		}
		for _, v := range l.values {
			if !l.valid(v) {
				t.Errorf("%s: listed %q is not Valid", kind, v)
			}
		}
		for _, v := range []string{"", "unknown", strings.ToUpper(l.values[0])} {
			if l.valid(v) {
				t.Errorf("%s: %q is Valid but not listed", kind, v)
			}
		}
	}
}

// TestMethodTypeAllIsEveryRegionsMethods checks the list of method types
// against the methods the regions declare (regionMethods).
func TestMethodTypeAllIsEveryRegionsMethods(t *testing.T) {
	var declared []string
	for _, ms := range regionMethods {
		for _, m := range ms {
			if !slices.Contains(declared, m.Type) {
				declared = append(declared, m.Type)
			}
		}
	}
	var listed []string
	for _, m := range MethodTypeAll() {
		listed = append(listed, string(m))
		if !knownMethod(string(m)) {
			t.Errorf("%q is listed but no region declares it", m)
		}
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Errorf("MethodTypeAll = %v, the regions declare %v", listed, declared)
	}
}

// TestRoleAllIsTheRolesOfThePermissionTable checks the list of roles
// against the table of what each may do.
func TestRoleAllIsTheRolesOfThePermissionTable(t *testing.T) {
	got := slices.Sorted(maps.Keys(rolePerms))
	want := slices.Sorted(slices.Values(RoleAll()))
	if !slices.Equal(got, want) {
		t.Errorf("rolePerms has %v, RoleAll %v", got, want)
	}
}

// TestEverySandboxOutcomeSimulates checks that simulate knows the
// statuses every outcome of the list applies to: one left out would be
// refused as unknown.
func TestEverySandboxOutcomeSimulates(t *testing.T) {
	for _, o := range SandboxOutcomeAll() {
		if len(o.simulateFrom()) == 0 {
			t.Errorf("simulate does not know which statuses %q applies to", o)
		}
	}
	if SandboxOutcome("succeeded").simulateFrom() != nil {
		t.Error(`"succeeded" is taken for an outcome`)
	}
}
