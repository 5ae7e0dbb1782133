"""The measure's commands: `gsr score` (score) and the options the measuring commands share (options)."""
