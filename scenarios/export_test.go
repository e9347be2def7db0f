package scenarios

// Helpers of this package's tests that its external tests (package
// scenarios_test, which may import the layers above: tui/export) use too.

// Schema compiles one of the JSON schemas in docs/.
var Schema = schema
