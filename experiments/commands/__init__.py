"""The `gsr` subcommands, one module each: `add_parser(subparsers)` declares its options and sets the function
that runs it (returning the exit status). experiments.cli lists them in COMMANDS."""
