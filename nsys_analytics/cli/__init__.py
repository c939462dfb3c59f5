"""The `nsys-analytics` command line: parse arguments, call the library, echo the result."""
