module kusaw.dev/step

go 1.26.0

require (
	github.com/creack/pty v1.1.24
	github.com/go-json-experiment/json v1.27.2
	github.com/rs/zerolog v1.35.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	golang.org/x/text v0.14.0
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
)

replace github.com/santhosh-tekuri/jsonschema/v6 => ./third_party/jsonschema
