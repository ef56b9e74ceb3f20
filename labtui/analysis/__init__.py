"""What labtui concludes from results: comparisons, statistics, sanity checks, known noise, and the
live state of a run folded from its event stream (shared by the CLI and the TUI). No Textual, no Rich."""
