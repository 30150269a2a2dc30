package client

// The generated layer: types and one raw method per operation of the
// contract. The generator is pinned in go.mod as a tool dependency.
//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../openapi/openapi.yaml
