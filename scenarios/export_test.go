package scenarios

// Helpers of this package's tests that its external tests (package
// scenarios_test, which may import the layers above: tui/export) use too.

// Schema compiles one of the JSON schemas in docs/.
var Schema = schema

// CatalogueRuns is the catalogue run once for the whole package (catalogueRuns).
var CatalogueRuns = catalogueRuns

// CatalogueRun is one of them, by id.
var CatalogueRun = catalogueRun

// Long reports whether -tags long asks for the long form of the tests.
var Long = long
